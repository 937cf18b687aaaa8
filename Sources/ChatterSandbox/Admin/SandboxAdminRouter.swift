import ChatterBots
import Foundation
import WebSocket

/// The sandbox-only HTTP routes under `/sandbox/`, guarded like the developer endpoints
/// (`X-Client-Key` + `X-Client-Secret`). Errors use the API's error body.
///
/// | route | body | answer |
/// |---|---|---|
/// | `POST /sandbox/users` | `SandboxSeed` | 201 `{ users: [SeededAccount] }` |
/// | `GET /sandbox/pushes?userId=&deviceId=&afterSequence=` | | 200 `{ pushes: [RecordedPush] }` |
/// | `POST /sandbox/devices/{deviceId}/faults` | `SandboxFault` | 204 |
/// | `DELETE /sandbox/devices/{deviceId}/faults` | | 204 |
/// | `GET /sandbox/connections` | | 200 `{ deviceIds: [String] }` |
public struct SandboxAdminRouter: Sendable {
    /// The path prefix of every admin route.
    public static let pathPrefix = "/sandbox/"

    public let admin: SandboxAdmin

    public init(admin: SandboxAdmin) {
        self.admin = admin
    }

    /// Whether `request` is for an admin route.
    public static func handles(_ request: HTTPRequest) -> Bool {
        request.path.hasPrefix(pathPrefix)
    }

    /// The response to one request under `/sandbox/`.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        do throws(ChatterErrorBody) {
            try admin.service.authorizeDeveloper(
                clientKey: request.headers.first(name: "X-Client-Key"),
                clientSecret: request.headers.first(name: "X-Client-Secret"))
            return try await route(request)
        } catch {
            return Self.errorResponse(error)
        }
    }

    private func route(_ request: HTTPRequest) async throws(ChatterErrorBody) -> HTTPResponse {
        let segments = request.path.dropFirst(Self.pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).removingPercentEncoding ?? String($0) }
        switch (request.method, segments.first, segments.count) {
        case (.post, "users", 1):
            let seed = try decode(SandboxSeed.self, from: request)
            return try Self.json(status: .created, await admin.createUsers(seed))
        case (.get, "pushes", 1):
            var afterSequence: Int64?
            if let text = request.queryValue("afterSequence") {
                guard let value = Int64(text) else {
                    throw Self.validation("afterSequence must be an integer.", field: "afterSequence")
                }
                afterSequence = value
            }
            let userId = request.queryValue("userId").map { User.ID($0) }
            let deviceId = request.queryValue("deviceId").map { Device.ID($0) }
            let pushes = try await admin.pushes(to: userId, device: deviceId, after: afterSequence)
            return try Self.json(status: .ok, RecordedPushList(pushes: pushes))
        case (.post, "devices", 3) where segments[2] == "faults" && !segments[1].isEmpty:
            let fault = try decode(SandboxFault.self, from: request)
            try await admin.inject(fault, into: Device.ID(segments[1]))
            return HTTPResponse(status: .noContent)
        case (.delete, "devices", 3) where segments[2] == "faults" && !segments[1].isEmpty:
            await admin.clearFaults(of: Device.ID(segments[1]))
            return HTTPResponse(status: .noContent)
        case (.get, "connections", 1):
            let devices = await admin.connectedDevices().sorted()
            return try Self.json(status: .ok, ConnectedDeviceList(deviceIds: devices))
        default:
            throw ChatterErrorBody(code: .notFound, message: "No sandbox route \(request.method.rawValue) \(request.path).")
        }
    }

    private func decode<Body: Decodable>(_ type: Body.Type, from request: HTTPRequest) throws(ChatterErrorBody) -> Body {
        do {
            return try JSONDecoder().decode(Body.self, from: Data(request.body))
        } catch let DecodingError.keyNotFound(key, context) {
            throw Self.validation("Missing field \(key.stringValue).", field: Self.path(context.codingPath + [key]))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw Self.validation("Wrong type: \(context.debugDescription)", field: Self.path(context.codingPath))
        } catch let DecodingError.dataCorrupted(context) {
            throw Self.validation(context.debugDescription, field: Self.path(context.codingPath))
        } catch {
            throw Self.validation("The body is not valid JSON.", field: nil)
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func validation(_ message: String, field: String?) -> ChatterErrorBody {
        ChatterErrorBody(
            code: .validationFailed, message: message,
            details: field.flatMap { $0.isEmpty ? nil : ["field": .string($0)] })
    }

    private static func json(status: HTTPStatus, _ value: some Encodable) throws(ChatterErrorBody) -> HTTPResponse {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            return HTTPResponse(
                status: status, headers: ["Content-Type": "application/json"], body: Array(try encoder.encode(value)))
        } catch {
            throw ChatterErrorBody(code: .internalError, message: "Could not encode the response: \(error)")
        }
    }

    static func errorResponse(_ error: ChatterErrorBody) -> HTTPResponse {
        let status = HTTPStatus(code: error.code.documentedHTTPStatus ?? 500)
        let body = (try? JSONEncoder().encode(error)).map(Array.init) ?? Array(#"{"code":"INTERNAL","message":"error"}"#.utf8)
        var response = HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
        if error.code == .rateLimited, let seconds = error.details?["retryAfter"]?.doubleValue {
            response.headers.add(name: "Retry-After", value: String(Int(seconds)))
        }
        return response
    }
}

/// `GET /sandbox/pushes`.
public struct RecordedPushList: Sendable, Hashable, Codable {
    public var pushes: [RecordedPush]

    public init(pushes: [RecordedPush]) { self.pushes = pushes }
}

/// `GET /sandbox/connections`: the devices with an open socket.
public struct ConnectedDeviceList: Sendable, Hashable, Codable {
    public var deviceIds: [Device.ID]

    public init(deviceIds: [Device.ID]) { self.deviceIds = deviceIds }
}
