import ChatterBots
import Synchronization

/// How the sandbox restarts, for `Sandbox.restart(downtime:)` and `POST /sandbox/restart` alike: the hub closes
/// its sockets its own way (1001 "server restarting") and forgets its faults, then the listener restarts.
///
/// The admin route is part of the listener's responder, so this holds the listener weakly: the listener keeps the
/// responder, not the other way round.
package final class SandboxRestarter: Sendable {
    private let hub: RealtimeHub
    private let clock: any ChatterClock
    private let attached = Mutex(Attached())

    private struct Attached {
        weak var listener: SandboxListener?
    }

    package init(hub: RealtimeHub, clock: any ChatterClock) {
        self.hub = hub
        self.clock = clock
    }

    /// Names the listener to restart, once it listens.
    package func attach(_ listener: SandboxListener) {
        attached.withLock { $0.listener = listener }
    }

    /// Restarts and returns once the sandbox listens again (see `SandboxListener.restart`).
    package func restart(downtime: Duration) async throws(SandboxRestartError) {
        try await listener().restart(downtime: downtime, clock: clock, closingSessions: closeSessions)
    }

    /// Starts a restart without waiting for it; the listener owns it.
    package func beginRestart(downtime: Duration) throws(SandboxRestartError) {
        try listener().beginRestart(downtime: downtime, clock: clock, closingSessions: closeSessions)
    }

    /// Why a restart asked for now would be refused; nil when it may begin.
    package var restartRefusal: SandboxRestartError? {
        do {
            return try listener().restartRefusal
        } catch {
            return error
        }
    }

    private var closeSessions: @Sendable () async -> Void {
        { [hub] in await hub.closeEverySocketForRestart() }
    }

    /// The listener; a sandbox whose listener is gone has been shut down.
    private func listener() throws(SandboxRestartError) -> SandboxListener {
        guard let listener = attached.withLock({ $0.listener }) else { throw .shutDown }
        return listener
    }
}
