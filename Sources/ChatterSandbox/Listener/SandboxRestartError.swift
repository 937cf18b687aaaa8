import WebSocket

/// Why `Sandbox.restart(downtime:)` failed.
public enum SandboxRestartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another restart is under way: wait for it (its call returns once the sandbox listens again).
    case alreadyRestarting
    /// The sandbox was shut down, before or during the restart: start a new sandbox.
    case shutDown
    /// The port could not be bound again after the downtime (another process took it): free the port and restart
    /// again, or shut the sandbox down.
    case cannotListen(port: Int, HTTPServerError)

    public var description: String {
        switch self {
        case .alreadyRestarting: "the sandbox is restarting already: wait until it listens again"
        case .shutDown: "the sandbox was shut down: start a new one"
        case .cannotListen(let port, let error):
            "the sandbox could not listen again on port \(port) (\(error)): free the port and restart it again"
        }
    }
}
