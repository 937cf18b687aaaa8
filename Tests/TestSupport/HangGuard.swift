import ChatterBots
import Foundation
import WebSocket

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

extension WebSocketClientConfiguration {
    /// The defaults, but the connect, the opening handshake and the close handshake wait hang guards in real time: a
    /// test about one of them sets it.
    public static var patient: WebSocketClientConfiguration {
        WebSocketClientConfiguration(connectTimeout: .hangGuard, handshakeTimeout: .hangGuard, closeTimeout: .hangGuard)
    }
}

extension HTTPServerConfiguration {
    /// The defaults, but a connection's idle close (which also bounds how long a client may take to send a request)
    /// and a WebSocket's close handshake wait hang guards in real time: a test about one of them sets it.
    public static var patient: HTTPServerConfiguration {
        HTTPServerConfiguration(idleTimeout: .hangGuard, webSocketCloseTimeout: .hangGuard)
    }
}

extension HTTPClientConfiguration {
    /// The defaults, but a connect and a request given no timeout of its own wait hang guards in real time: a test
    /// about one of them sets it.
    public static var patient: HTTPClientConfiguration {
        HTTPClientConfiguration(connectTimeout: .hangGuard, requestTimeout: .hangGuard)
    }
}

extension URLSession {
    /// An ephemeral session whose requests wait a hang guard of silence in real time, not URLSession's 60 s: no test
    /// is about its timeouts. Give it `URLRequest.patient` requests, whose own bound is the hang guard too.
    package static let patient: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = TimeInterval(Duration.hangGuard.components.seconds)
        return URLSession(configuration: configuration)
    }()
}

extension URLRequest {
    /// This request, bounded by a hang guard of silence in real time instead of the default 60 s.
    package var patient: URLRequest {
        var request = self
        request.timeoutInterval = TimeInterval(Duration.hangGuard.components.seconds)
        return request
    }
}
