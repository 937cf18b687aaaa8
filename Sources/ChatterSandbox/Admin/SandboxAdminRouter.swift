import ChatterBots
import Foundation
import WebSocket

/// The sandbox-only HTTP routes under `/sandbox/`, guarded like the developer endpoints
/// (`X-Client-Key` + `X-Client-Secret`). Bodies are read and errors answered exactly as the REST API does
/// (`RESTBodyDecoder`, `SandboxRESTRouter.errorResponse`).
///
/// | route | body | answer |
/// |---|---|---|
/// | `POST /sandbox/users` | `SandboxSeed` | 201 `{ users: [SeededAccount] }` |
/// | `GET /sandbox/pushes?userId=&deviceId=&afterSequence=` | | 200 `{ pushes: [RecordedPush] }` |
/// | `POST /sandbox/devices/{deviceId}/faults` | `SandboxFault` | 204 |
/// | `DELETE /sandbox/devices/{deviceId}/faults` | | 204 |
/// | `GET /sandbox/connections` | | 200 `{ deviceIds: [String] }` |
/// | `GET /sandbox/devices/events?deviceId=&afterSequence=` | | 200 `{ events: [DeviceSocketEvent] }` |
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
            return SandboxRESTRouter.errorResponse(error)
        }
    }

    private func route(_ request: HTTPRequest) async throws(ChatterErrorBody) -> HTTPResponse {
        let segments = request.path.dropFirst(Self.pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).removingPercentEncoding ?? String($0) }
        switch (request.method, segments.first, segments.count) {
        case (.post, "users", 1):
            let seed = try RESTBodyDecoder.decode(SandboxSeed.self, from: request.body)
            return try SandboxRESTRouter.json(await admin.createUsers(seed), status: .created)
        case (.get, "pushes", 1):
            var afterSequence: Int64?
            if let text = request.queryValue("afterSequence") {
                guard let value = Int64(text) else {
                    throw .validation(field: "afterSequence", "afterSequence must be a whole number.")
                }
                afterSequence = value
            }
            let userId = request.queryValue("userId").map { User.ID($0) }
            let deviceId = request.queryValue("deviceId").map { Device.ID($0) }
            let pushes = try await admin.pushes(to: userId, device: deviceId, after: afterSequence)
            return try SandboxRESTRouter.json(RecordedPushList(pushes: pushes))
        case (.get, "devices", 2) where segments[1] == "events":
            var afterSequence: Int64?
            if let text = request.queryValue("afterSequence") {
                guard let value = Int64(text) else {
                    throw .validation(field: "afterSequence", "afterSequence must be a whole number.")
                }
                afterSequence = value
            }
            let deviceId = request.queryValue("deviceId").map { Device.ID($0) }
            let events = await admin.socketEvents(after: afterSequence).filter { deviceId == nil || $0.deviceId == deviceId }
            return try SandboxRESTRouter.json(DeviceSocketEventList(events: events))
        case (.post, "devices", 3) where segments[2] == "faults" && !segments[1].isEmpty:
            let fault = try RESTBodyDecoder.decode(SandboxFault.self, from: request.body)
            try await admin.inject(fault, into: Device.ID(segments[1]))
            return HTTPResponse(status: .noContent)
        case (.delete, "devices", 3) where segments[2] == "faults" && !segments[1].isEmpty:
            await admin.clearFaults(of: Device.ID(segments[1]))
            return HTTPResponse(status: .noContent)
        case (.get, "connections", 1):
            let devices = await admin.connectedDevices().sorted()
            return try SandboxRESTRouter.json(ConnectedDeviceList(deviceIds: devices))
        default:
            throw ChatterErrorBody(code: .notFound, message: "No sandbox route \(request.method.rawValue) \(request.path).")
        }
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
