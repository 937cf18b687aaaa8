import Foundation
import WebSocket

/// The optional HTTP endpoint of a bot process (`httpPort` in `bots.json`): `GET /healthz` answers the
/// `HealthReport` as JSON (200 when healthy, 503 otherwise) and `GET /metrics` the `MetricsExposition`; the
/// routes under `/quarantine` list, retry and drop quarantined work (see docs/running.md).
/// Other paths are 404, other methods 405.
public final class HealthServer: Sendable {
    private let server: HTTPServer

    /// The port it listens on (the one the system chose when started with port 0).
    public var port: Int { server.port }

    private init(server: HTTPServer) {
        self.server = server
    }

    /// Starts serving the supervisor's bots on `host:port` (loopback by default; `0.0.0.0` for a scraper on
    /// another machine).
    ///
    /// - Throws: `HTTPServerError` when the port cannot be bound (in use, privileged).
    public static func start(
        supervisor: BotSupervisor, host: String = "127.0.0.1", port: Int
    ) async throws(HTTPServerError) -> HealthServer {
        let server = try await HTTPServer.start(host: host, port: port) { request in
            .response(await respond(to: request, supervisor: supervisor))
        }
        return HealthServer(server: server)
    }

    /// Stops listening and closes open connections.
    public func shutdown() async {
        await server.shutdown()
    }

    static func respond(to request: HTTPRequest, supervisor: BotSupervisor) async -> HTTPResponse {
        if ControlRoute.owns(request.path) {
            return await ControlRoutes.respond(to: request, supervisor: supervisor)
        }
        let routes = ["/healthz", "/metrics"]
        guard routes.contains(request.path) else {
            return HTTPResponse(status: .notFound, text: "Not found. Try /healthz, /metrics or /quarantine.\n")
        }
        guard request.method == .get || request.method == .head else {
            var response = HTTPResponse(status: .methodNotAllowed, text: "Only GET is allowed here.\n")
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        var response: HTTPResponse
        if request.path == "/healthz" {
            let report = await supervisor.health()
            response = HTTPResponse(
                status: report.isHealthy ? .ok : .serviceUnavailable,
                headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Array(report.jsonData()))
        } else {
            let text = MetricsExposition(bots: await supervisor.statuses()).text
            response = HTTPResponse(
                status: .ok, headers: ["Content-Type": MetricsExposition.contentType, "Cache-Control": "no-store"],
                body: Array(text.utf8))
        }
        if request.method == .head {
            response.headers.add(name: "Content-Length", value: String(response.body.count))
            response.body = []
        }
        return response
    }
}
