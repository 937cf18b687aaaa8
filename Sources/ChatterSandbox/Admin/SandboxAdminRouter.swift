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
/// | `POST /sandbox/restart` | `{ downtimeSeconds }` (0 to 3600) | 202 `{ downtimeSeconds }`, then the restart |
///
/// `POST /sandbox/restart` restarts the server as `Sandbox.restart(downtime:)` does, once its answer is delivered
/// (the restart closes every connection, this one too); it is 409 `SANDBOX_RESTARTING` while a restart is under
/// way and 503 `SANDBOX_SHUT_DOWN` once the sandbox is shut down, and served by `serve(_:)` only (a router made with
/// `init(admin:)` has no server to restart).
public struct SandboxAdminRouter: Sendable {
    /// The path prefix of every admin route.
    public static let pathPrefix = "/sandbox/"

    public let admin: SandboxAdmin
    private let restarter: SandboxRestarter?

    public init(admin: SandboxAdmin) {
        self.admin = admin
        self.restarter = nil
    }

    /// A router that also serves `POST /sandbox/restart` with `restarter`.
    package init(admin: SandboxAdmin, restarter: SandboxRestarter) {
        self.admin = admin
        self.restarter = restarter
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

    /// The answer to one request under `/sandbox/`, as the server sends it: `respond(to:)`, and
    /// `POST /sandbox/restart`, which answers first and restarts once the answer is delivered.
    package func serve(_ request: HTTPRequest) async -> HTTPServerResponse {
        guard let restarter, request.method == .post, request.path == Self.pathPrefix + "restart" else {
            return .response(await respond(to: request))
        }
        do throws(ChatterErrorBody) {
            try admin.service.authorizeDeveloper(
                clientKey: request.headers.first(name: "X-Client-Key"),
                clientSecret: request.headers.first(name: "X-Client-Secret"))
            let body = try RESTBodyDecoder.decode(SandboxRestartRequest.self, from: request.body)
            let downtime = try body.downtime()
            if let refusal = restarter.restartRefusal { return .response(Self.response(refusing: refusal)) }
            let answer = try SandboxRESTRouter.json(body, status: .accepted)
            return .stream(head: answer) { stream in
                // Restarting closes every connection: this answer is delivered and its connection closed first. A
                // restart that another one overtook meanwhile is that one's.
                _ = await stream.send(answer.body)
                stream.end()
                await stream.waitUntilClosed()
                try? restarter.beginRestart(downtime: downtime)
            }
        } catch {
            return .response(SandboxRESTRouter.errorResponse(error))
        }
    }

    /// The answer to a restart the sandbox refuses: a restart under way conflicts with this one (409
    /// `SANDBOX_RESTARTING`); a sandbox shut down serves nothing any more (503 `SANDBOX_SHUT_DOWN`). These codes
    /// are the sandbox's own, not the service's, so a client's retry rules for the service's codes do not apply.
    package static func response(refusing refusal: SandboxRestartError) -> HTTPResponse {
        let (code, status): (ChatterErrorCode, Int) =
            refusal == .shutDown ? ("SANDBOX_SHUT_DOWN", 503) : ("SANDBOX_RESTARTING", 409)
        var refused = SandboxRESTRouter.errorResponse(ChatterErrorBody(code: code, message: refusal.description))
        refused.status = HTTPStatus(code: status)
        return refused
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

/// `POST /sandbox/restart`: how long the restarted sandbox refuses connections.
struct SandboxRestartRequest: Sendable, Hashable, Codable {
    static let longestDowntimeSeconds = 3600.0

    var downtimeSeconds: Double

    /// The downtime, checked: 0 to an hour.
    func downtime() throws(ChatterErrorBody) -> Duration {
        guard downtimeSeconds.isFinite, (0...Self.longestDowntimeSeconds).contains(downtimeSeconds) else {
            throw .validation(field: "downtimeSeconds", "downtimeSeconds must be a number of seconds from 0 to 3600.")
        }
        return .milliseconds(Int64((downtimeSeconds * 1000).rounded()))
    }
}

/// `GET /sandbox/connections`: the devices with an open socket.
public struct ConnectedDeviceList: Sendable, Hashable, Codable {
    public var deviceIds: [Device.ID]

    public init(deviceIds: [Device.ID]) { self.deviceIds = deviceIds }
}
