import ChatterBots
import WebSocket

/// Serves every REST endpoint of chatter-api.md (paths from ChatterBots' endpoint table) over the service,
/// and hands the events of each mutation to the event sink.
public struct SandboxRESTRouter: Sendable {
    public let service: ChatterService
    public let sink: any SandboxEventSink
    /// The path the API lives under (the `/v1` of `http://127.0.0.1:<port>/v1`).
    public let pathPrefix: String

    public init(service: ChatterService, sink: any SandboxEventSink, pathPrefix: String = "/v1") {
        self.service = service
        self.sink = sink
        self.pathPrefix = pathPrefix
    }

    /// The body size the HTTP server must accept so that the router, not the server, judges sizes (media
    /// uploads up to `maxMediaBytes`; anything over 1 MiB elsewhere is PAYLOAD_TOO_LARGE).
    public var requiredMaxBodyBytes: Int { service.configuration.maxMediaBytes + 1 }

    /// The response to one HTTP request under `pathPrefix`.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        HTTPResponse(status: .internalServerError, text: "Not written yet")
    }
}
