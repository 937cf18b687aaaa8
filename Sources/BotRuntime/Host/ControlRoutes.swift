import WebSocket

/// Serves the routes that act on the running process (`ControlRoute`) for `HealthServer`. Every control request
/// passes through `respond(to:supervisor:reloader:)`, after `HealthServer` checked `ControlAccess`.
enum ControlRoutes {
    static func respond(
        to request: HTTPRequest, supervisor: BotSupervisor, reloader: (any ConfigurationReloading)? = nil
    ) async -> HTTPResponse {
        let route: ControlRoute
        do {
            route = try ControlRoute(method: request.method, path: request.path, queryItems: request.queryItems)
        } catch {
            return refusal(error)
        }
        if case .reload = route {
            guard let reloader else {
                return json(.notFound, QuarantineJSON.Failure(error: "this process does not reload its configuration"))
            }
            let report = await reloader.reload(trigger: "the control route")
            // A file that does not validate, or that changes what needs a restart: 422 with every error.
            return json(report.applied ? .ok : .unprocessableContent, report)
        }
        do throws(QuarantineControlError) {
            switch route {
            case .reload:
                return json(.notFound, QuarantineJSON.Failure(error: "no such route"))
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
            case .storeOpening:
                return json(.serviceUnavailable, QuarantineJSON.Failure(error: error.description))
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
