/// When the sandbox's HTTP listener stops and listens again, as a plain value: one restart at a time, none after
/// shutdown, and a restart that a shutdown overtakes never listens again.
///
/// `SandboxListener` reports each step of a restart and carries out what the answers say.
package struct SandboxListenerLifecycle: Sendable, Equatable {
    /// Where the listener is.
    package enum Phase: Sendable, Hashable {
        /// Accepting connections.
        case listening
        /// A restart is closing the sockets, the listener and every connection.
        case closing
        /// A restart's downtime: nothing listens, so connecting is refused.
        case down
        /// A restart could not listen again (the port was taken); another restart may try again.
        case notListening
        /// Shut down for good.
        case shutDown
    }

    package private(set) var phase: Phase = .listening

    package init() {}

    /// Why a restart asked for now is refused: one is under way, or the listener was shut down; nil when it may
    /// begin.
    package var restartRefusal: SandboxRestartError? {
        switch phase {
        case .listening, .notListening: nil
        case .closing, .down: .alreadyRestarting
        case .shutDown: .shutDown
        }
    }

    /// A restart is asked for: it begins (closing) unless `restartRefusal` says why not.
    package mutating func restartRequested() throws(SandboxRestartError) {
        if let restartRefusal { throw restartRefusal }
        phase = .closing
    }

    /// The restart closed everything; the downtime begins unless a shutdown came meanwhile.
    package mutating func closed() {
        if phase == .closing { phase = .down }
    }

    /// The downtime is over: whether to listen again (not after a shutdown).
    package func shouldListenAgain() -> Bool { phase == .down }

    /// The restart listens again: whether to keep the new listener (false after a shutdown, which the listener
    /// then closes).
    package mutating func listened() -> Bool {
        guard phase == .down else { return false }
        phase = .listening
        return true
    }

    /// The restart could not listen again.
    package mutating func listenFailed() {
        if phase == .down { phase = .notListening }
    }

    /// Shut down: every later step of a restart is refused.
    package mutating func shutdownRequested() {
        phase = .shutDown
    }
}
