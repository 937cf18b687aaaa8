import ChatterBots
import Foundation
import WebSocket

/// A running Chatter sandbox: the REST API under `/v1`, the realtime endpoint at `/v1/ws`, and the admin
/// routes under `/sandbox/`, on one HTTP server, over one SQLite store, with every timer on the configured clock.
///
/// ```swift
/// let sandbox = try await Sandbox.start(SandboxConfiguration(clock: ManualClock()))
/// defer { Task { await sandbox.shutdown() } }
/// let accounts = try await sandbox.admin.createUsers(SandboxSeed(users: [...], friendships: [...]))
/// ```
public final class Sandbox: Sendable {
    /// The REST base URL, e.g. `http://127.0.0.1:53817/v1` (the `$API` of the docs).
    public let apiURL: URL
    /// The realtime URL without query, e.g. `ws://127.0.0.1:53817/v1/ws`; add `clientKey` and `token`.
    public let webSocketURL: URL
    /// The admin base URL, e.g. `http://127.0.0.1:53817/sandbox`.
    public let adminURL: URL
    /// The workspace's first client key (the `$CK` of the docs) and its secret.
    public let clientKey: String
    public let clientSecret: String
    /// The accounts created from `SandboxConfiguration.seed` (empty without a seed).
    public let seeded: SeededAccounts
    public let clock: any ChatterClock
    public let service: ChatterService
    public let hub: RealtimeHub
    public let admin: SandboxAdmin
    private let listener: SandboxListener
    private let restarter: SandboxRestarter
    private let store: SandboxStore

    private init(
        listener: SandboxListener, restarter: SandboxRestarter, store: SandboxStore, service: ChatterService,
        hub: RealtimeHub, clock: any ChatterClock,
        host: String, credential: SandboxClientCredential, seeded: SeededAccounts
    ) {
        let authority = host.contains(":") ? "[\(host)]:\(listener.port)" : "\(host):\(listener.port)"
        // The authority is an IP literal or host name and a port, so these URLs always parse.
        apiURL = URL(string: "http://\(authority)/v1") ?? URL(fileURLWithPath: "/")
        webSocketURL = URL(string: "ws://\(authority)/v1/ws") ?? URL(fileURLWithPath: "/")
        adminURL = URL(string: "http://\(authority)/sandbox") ?? URL(fileURLWithPath: "/")
        clientKey = credential.clientKey
        clientSecret = credential.clientSecret
        self.listener = listener
        self.restarter = restarter
        self.store = store
        self.service = service
        self.hub = hub
        self.clock = clock
        self.admin = SandboxAdmin(service: service, hub: hub)
        self.seeded = seeded
    }

    /// Where a `ChatterRESTClient` or a bot finds this sandbox.
    public var serverConfiguration: ChatterServerConfiguration {
        ChatterServerConfiguration(apiBaseURL: apiURL, webSocketURL: webSocketURL, clientKey: clientKey)
    }

    /// The realtime URL of a device: `webSocketURL?clientKey=<clientKey>&token=<accessToken>`.
    public func webSocketURL(accessToken: String, clientKey: String? = nil) -> URL {
        var components = URLComponents(url: webSocketURL, resolvingAgainstBaseURL: false)
        components?.queryItems = [
            URLQueryItem(name: "clientKey", value: clientKey ?? self.clientKey),
            URLQueryItem(name: "token", value: accessToken),
        ]
        return components?.url ?? webSocketURL
    }

    /// Opens the store, creates the service, the hub and the routers, starts listening, and applies the seed.
    ///
    /// - Throws: `SandboxStartError` saying which step failed (store, listening, seed).
    public static func start(_ configuration: SandboxConfiguration = .init()) async throws(SandboxStartError) -> Sandbox {
        try await start(configuration, preparing: { _ in }).sandbox
    }

    /// `start(_:)`, with `preparing` run on the service before the port accepts a connection: a client that
    /// reaches the port finds what `preparing` made (the embedded sandbox's accounts, which shards wait for).
    package static func start<Prepared: Sendable>(
        _ configuration: SandboxConfiguration, preparing: @Sendable (ChatterService) async -> Prepared
    ) async throws(SandboxStartError) -> (sandbox: Sandbox, prepared: Prepared) {
        guard let credential = configuration.service.clients.first else { throw .noClientKey }
        let store: SandboxStore
        do {
            switch configuration.storage {
            case .memory: store = try await SandboxStore.inMemory()
            case .file(let path): store = try await SandboxStore.open(path: path)
            }
        } catch {
            throw .storeUnavailable(String(describing: error))
        }
        let service = ChatterService(store: store, clock: configuration.clock, configuration: configuration.service)
        let prepared = await preparing(service)
        let hub = RealtimeHub(service: service, clock: configuration.clock, configuration: configuration.realtime)
        let router = SandboxRESTRouter(service: service, sink: hub)
        let restarter = SandboxRestarter(hub: hub, clock: configuration.clock)
        let responder = SandboxResponder(
            rest: router, admin: SandboxAdminRouter(admin: SandboxAdmin(service: service, hub: hub), restarter: restarter),
            hub: hub, webSocketPath: router.pathPrefix + "/ws")
        let frameLimit = configuration.realtime.maxFrameBytes
        let serverConfiguration = HTTPServerConfiguration(
            parserLimits: HTTPParserLimits(maxBodyBytes: router.requiredMaxBodyBytes),
            webSocketLimits: WebSocketLimits(maxFrameSize: frameLimit, maxMessageSize: frameLimit))
        let listener: SandboxListener
        do {
            listener = try await SandboxListener.start(
                host: configuration.host, port: configuration.port, configuration: serverConfiguration, responder: responder)
        } catch {
            await store.close()
            throw .cannotListen(error)
        }
        restarter.attach(listener)
        var seeded = SeededAccounts(users: [])
        if let seed = configuration.seed {
            do {
                seeded = try await SandboxAdmin(service: service, hub: hub).createUsers(seed)
            } catch {
                await listener.shutdown()
                await store.close()
                throw .seedFailed(error)
            }
        }
        let sandbox = Sandbox(
            listener: listener, restarter: restarter, store: store, service: service, hub: hub, clock: configuration.clock,
            host: configuration.host, credential: credential, seeded: seeded)
        return (sandbox, prepared)
    }

    /// Restarts the server as a restarted process would, keeping the store (accounts, conversations, devices and
    /// messages survive): every realtime socket closes with 1001 "server restarting" and the armed faults are
    /// forgotten, the listener and every HTTP connection close, connecting is refused for `downtime` on the
    /// sandbox's clock, and then the sandbox listens again on the same host and port. Returns once it listens
    /// again; one restart runs at a time.
    ///
    /// - Throws: `SandboxRestartError.alreadyRestarting` while another restart is under way (its call returns when
    ///   the sandbox is back), `.shutDown` when the sandbox was or got shut down, `.cannotListen` when the port
    ///   was taken during the downtime.
    public func restart(downtime: Duration) async throws(SandboxRestartError) {
        try await restarter.restart(downtime: downtime)
    }

    /// Where the HTTP listener is (listening, or which step of a restart), for tests that watch a restart.
    package var listenerPhase: SandboxListenerLifecycle.Phase { listener.phase }

    /// Waits until the HTTP listener reaches `phase`, or the sandbox is shut down; returns the phase reached.
    package func waitForListener(_ phase: SandboxListenerLifecycle.Phase) async -> SandboxListenerLifecycle.Phase {
        await listener.wait(until: phase)
    }

    /// Stops the timers, closes every socket with 1001 "server restarting" and every other connection (ending a
    /// restart under way, which then does not listen again), and closes the store.
    public func shutdown() async {
        await hub.shutdown()
        await listener.shutdown()
        await store.close()
    }
}

/// Why `Sandbox.start` failed.
public enum SandboxStartError: Error, Sendable, CustomStringConvertible {
    /// The service configuration has no client key; add one (the default is `ck_sandbox`).
    case noClientKey
    /// The SQLite store could not be opened or migrated (the path, permissions, or a newer schema).
    case storeUnavailable(String)
    /// The HTTP server could not listen (port in use, bad host).
    case cannotListen(HTTPServerError)
    /// The start-up seed was refused (e.g. a taken username or a short password).
    case seedFailed(ChatterErrorBody)

    public var description: String {
        switch self {
        case .noClientKey: "the sandbox needs at least one client key"
        case .storeUnavailable(let reason): "the sandbox store could not be opened: \(reason)"
        case .cannotListen(let error): "the sandbox could not listen: \(error)"
        case .seedFailed(let error): "the sandbox seed was refused: \(error.code): \(error.message)"
        }
    }
}

/// Routes one listener's requests: the realtime upgrade, the admin routes, and everything else to REST.
struct SandboxResponder: HTTPResponder {
    let rest: SandboxRESTRouter
    let admin: SandboxAdminRouter
    let hub: RealtimeHub
    let webSocketPath: String

    func respond(to request: HTTPRequest) async -> HTTPServerResponse {
        if request.path == webSocketPath {
            // Not an upgrade: VALIDATION_FAILED with its documented status, 400 (RFC 6455 also answers a handshake
            // it cannot accept with 400), rather than 426 with a code whose documented status is 400.
            guard request.isWebSocketUpgrade else {
                return .response(SandboxRESTRouter.errorResponse(ChatterErrorBody(
                    code: .validationFailed,
                    message: "Connect to \(webSocketPath) with a WebSocket upgrade (Upgrade: websocket).",
                    details: ["field": "Upgrade"])))
            }
            return .webSocket { [hub] connection in await hub.serve(connection) }
        }
        if SandboxAdminRouter.handles(request) {
            return await admin.serve(request)
        }
        return .response(await rest.respond(to: request))
    }
}
