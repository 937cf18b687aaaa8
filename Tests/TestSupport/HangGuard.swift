import ChatterBots
import WebSocket

extension Duration {
    /// How long a test waits in real time for something that must happen before it fails instead of hanging the
    /// run. Only a bug waits it out, so it is far beyond a stall of the machine: a whole-suite run on two cores has
    /// held dozens of tests off the CPU for a minute at once. A bound whose expiry is the behaviour under test is
    /// not a hang guard: such tests move a virtual clock, or wait for an expiry that is the only possible outcome.
    public static let hangGuard: Duration = .seconds(120)

    /// The hang guard in whole seconds, for a peer's own bound such as curl's `--max-time`.
    public static var hangGuardSeconds: String { String(hangGuard.components.seconds) }
}

extension RealtimeConnectionOptions {
    /// The defaults, but the socket's connect and handshake, the `session.ready` wait and the replies' timeouts in
    /// real time are hang guards: a test about one of them sets it on a virtual clock.
    public static var patient: RealtimeConnectionOptions {
        RealtimeConnectionOptions(
            sessionReadyTimeout: .hangGuard, requestTimeout: .hangGuard,
            webSocket: WebSocketClientConfiguration(connectTimeout: .hangGuard, handshakeTimeout: .hangGuard))
    }
}

extension RESTRequestTimeouts {
    /// Every request's bound in real time is a hang guard: no test is about the REST client's timeouts taking effect.
    package static let hangGuard = RESTRequestTimeouts(standard: .hangGuard, media: .hangGuard)
}
