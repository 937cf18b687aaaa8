import WebSocket

/// Serves the routes that act on the running process (`ControlRoute`) for `HealthServer`. Every control request
/// passes through `respond(to:supervisor:)`: the one place where a check of who may act belongs.
enum ControlRoutes {
    static func respond(to request: HTTPRequest, supervisor: BotSupervisor) async -> HTTPResponse {
        let route: ControlRoute
        do {
            route = try ControlRoute(method: request.method, path: request.path, queryItems: request.queryItems)
        } catch {
            return refusal(error)
        }
        do throws(QuarantineControlError) {
            switch route {
            case .list(let bot):
                return json(.ok, QuarantineJSON.Listing(entries: try await supervisor.quarantine(bot: bot)))
            case .retry(let reference):
                return json(.ok, try await supervisor.retryQuarantined(reference))
            case .drop(let reference):
                try await supervisor.dropQuarantined(reference)
                return json(.ok, QuarantineJSON.Dropped(reference))
            }
        } catch {
            switch error {
            case .unknownBot, .unknownEntry:
                return json(.notFound, QuarantineJSON.Failure(error: error.description))
            case .storage, .dataDirectoryInUse, .storeLocked:
                return json(.internalServerError, QuarantineJSON.Failure(error: error.description))
            }
        }
    }

    private static func refusal(_ refusal: ControlRoute.Refusal) -> HTTPResponse {
        switch refusal {
        case .notFound(let message):
            return json(.notFound, QuarantineJSON.Failure(error: message))
        case .badRequest(let message):
            return json(.badRequest, QuarantineJSON.Failure(error: message))
        case .methodNotAllowed(let allowed):
            let methods = allowed.map(\.rawValue).joined(separator: ", ")
            var response = json(.methodNotAllowed, QuarantineJSON.Failure(error: "only \(methods) is allowed here"))
            response.headers.add(name: "Allow", value: methods)
            return response
        }
    }

    private static func json(_ status: HTTPStatus, _ body: some Encodable) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: QuarantineJSON.encode(body))
    }
}
