import Foundation
import WebSocket

/// The optional HTTP endpoint of a bot process (`httpPort` and `httpBind` in `bots.json`): `GET /healthz` answers
/// the `HealthReport` as JSON (200 when healthy, 503 otherwise; every bot's status only with `?bots=all`), `GET
/// /metrics` the `MetricsExposition`, `GET /livez` 200 while the process answers, and `GET /readyz` 200 once every
/// bot of the start has been live (`FleetReadiness`; 503 before, naming the bots waited for); the control routes
/// under `/quarantine` list, retry and drop quarantined work and `POST /reload` reads `bots.json` again, for requests
/// `ControlAccess` permits (see docs/running.md); with `console`, the web console under `/console` (`ConsoleRoutes`,
/// docs/console.md). Other paths are 404, other methods 405.
public final class HealthServer: Sendable {
    private let server: HTTPServer

    /// The port it listens on (the one the system chose when started with port 0).
    public var port: Int { server.port }

    private init(server: HTTPServer) {
        self.server = server
    }

    /// Starts serving the supervisor's bots on `host:port` (loopback by default; `0.0.0.0` for a scraper on
    /// another machine), and the web console when `console` is true.
    ///
    /// - Throws: `HTTPServerError` when the port cannot be bound (in use, privileged).
    public static func start(
        supervisor: BotSupervisor, host: String = "127.0.0.1", port: Int, access: ControlAccess = ControlAccess(token: nil),
        console: Bool = false
    ) async throws(HTTPServerError) -> HealthServer {
        try await start(
            supervisor: supervisor, reloader: nil, host: host, port: port, access: access, console: console, faults: nil,
            consoleExtensions: [], logTail: nil)
    }

    /// Starts serving as above, with `POST /reload` carried out by `reloader` (its generation in `/healthz`), the
    /// make threads `makeThreads` counts in `/healthz` and `/metrics`, the console's fault buttons carried out by
    /// `faults`, more console routes (the embedded sandbox's), and the log tail the console shows.
    package static func start(
        supervisor: BotSupervisor, reloader: (any ConfigurationReloading)?,
        makeThreads: (@Sendable () -> MakeThreads.Census)? = nil, host: String, port: Int, access: ControlAccess,
        console: Bool = false, faults: (any ConsoleFaultInjector)? = nil, faultTargets: (any ConsoleFaultTargets)? = nil,
        consoleExtensions: [any ConsoleRouteExtension] = [], logTail: ConsoleLogTail? = nil
    ) async throws(HTTPServerError) -> HealthServer {
        let consoleRoutes = console
            ? ConsoleRoutes(
                supervisor: supervisor, access: ConsoleAccess(control: access), bind: host, faults: faults,
                faultTargets: faultTargets, extensions: consoleExtensions, logTail: logTail)
            : nil
        let server = try await HTTPServer.start(host: host, port: port, configuration: HTTPServerConfiguration(maxConnections: Self.maxConnections)) { request in
            if let consoleRoutes, ConsoleRoutes.owns(request.path) { return await consoleRoutes.respond(to: request) }
            return .response(await respond(
                to: request, supervisor: supervisor, access: access, reloader: reloader, makeThreads: makeThreads))
        }
        consoleRoutes?.serve(onPort: server.port)
        return HealthServer(server: server)
    }

    /// The most connections the server keeps open: probes, scrapers, the control commands and a few consoles need
    /// far fewer, and idle clients beyond it must not take the descriptors the bots need.
    static let maxConnections = 256

    /// The answer to `/healthz?bots=` with another value than `all`.
    private static let unknownListing = #"{"error":"bots takes only \"all\" (/healthz?bots=all lists every bot); "#
        + #"leave it out for the counts by state and the bots not live"}"#

    /// Stops listening and closes open connections.
    public func shutdown() async {
        await server.shutdown()
    }

    static func respond(
        to request: HTTPRequest, supervisor: BotSupervisor, access: ControlAccess = ControlAccess(token: nil),
        reloader: (any ConfigurationReloading)? = nil, makeThreads: (@Sendable () -> MakeThreads.Census)? = nil
    ) async -> HTTPResponse {
        if ControlRoute.owns(request.path) {
            guard access.permits(request) else {
                var response = HTTPResponse(
                    status: .unauthorized,
                    headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                    body: Array(#"{"error":"this control route needs the control token: send Authorization: Bearer <CHATTERBOTS_CONTROL_TOKEN>"}"#.utf8))
                response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="chatterbots""#)
                return response
            }
            if let refusal = access.refusalWithoutToken(request) {
                return HTTPResponse(
                    status: .forbidden, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                    body: Array((try? JSONEncoder().encode(["error": refusal])) ?? Data()))
            }
            return await ControlRoutes.respond(to: request, supervisor: supervisor, reloader: reloader)
        }
        let routes = ["/healthz", "/metrics", "/livez", "/readyz"]
        if ConsoleRoutes.owns(request.path) {
            return HTTPResponse(status: .notFound, text: "The console is off: set \"console\": true in bots.json (docs/console.md).\n")
        }
        guard routes.contains(request.path) else {
            return HTTPResponse(status: .notFound, text: "Not found. Try /healthz, /metrics, /livez, /readyz, /quarantine or POST /reload.\n")
        }
        guard request.method == .get || request.method == .head else {
            var response = HTTPResponse(status: .methodNotAllowed, text: "Only GET is allowed here.\n")
            response.headers.add(name: "Allow", value: "GET, HEAD")
            return response
        }
        var response: HTTPResponse
        if request.path == "/livez" {
            response = HTTPResponse(status: .ok, text: "live\n")
        } else if request.path == "/readyz" {
            let verdict = await supervisor.readinessVerdict()
            response = HTTPResponse(status: verdict.isReady ? .ok : .serviceUnavailable, text: verdict.text)
        } else if request.path == "/healthz" {
            let listing = request.queryValue("bots")
            guard listing == nil || listing == "all" else {
                return HTTPResponse(
                    status: .badRequest, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                    body: Array(Self.unknownListing.utf8))
            }
            var report = listing == "all" ? await supervisor.health() : await supervisor.healthSummary()
            report.configuration = await reloader?.generation
            report.makeThreads = makeThreads?()
            response = HTTPResponse(
                status: report.isHealthy ? .ok : .serviceUnavailable,
                headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Array(report.jsonData(listingEveryBot: listing == "all")))
        } else {
            var metrics = await supervisor.metrics()
            metrics.configuration = await reloader?.generation
            metrics.makeThreads = makeThreads?()
            let text = metrics.text
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
