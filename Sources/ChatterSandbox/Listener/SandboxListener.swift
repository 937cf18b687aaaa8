import ChatterBots
import Foundation
import Synchronization
import WebSocket

/// The sandbox's HTTP listener, which a restart stops and starts again on the same host and port with the same
/// responder, as a restarted process would. `SandboxListenerLifecycle` decides what each step may do; this type
/// carries it out.
///
/// A restart runs in a task this listener owns, so that `shutdown()` can end it during the downtime (nothing
/// listens again) and wait for it.
package final class SandboxListener: Sendable {
    /// The host and the bound port (the one the system chose when started with port 0), kept across restarts.
    package let host: String
    package let port: Int
    private let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let state: Mutex<State>

    package typealias Phase = SandboxListenerLifecycle.Phase
    private typealias PhaseWaiter = CheckedContinuation<Phase, Never>

    private struct State {
        var lifecycle = SandboxListenerLifecycle()
        /// The running server; nil from the start of a restart until it listens again.
        var server: HTTPServer?
        var restart: Task<Result<Void, SandboxRestartError>, Never>?
        var phaseWaiters: [(phase: Phase, continuation: PhaseWaiter)] = []

        /// Applies a change of the lifecycle and hands back the waiters it satisfies, to resume outside the lock.
        mutating func change(
            _ body: (inout SandboxListenerLifecycle) -> Void
        ) -> [(PhaseWaiter, Phase)] {
            body(&lifecycle)
            let phase = lifecycle.phase
            let satisfied = phaseWaiters.filter { $0.phase == phase || phase == .shutDown }
            phaseWaiters.removeAll { $0.phase == phase || phase == .shutDown }
            return satisfied.map { ($0.continuation, phase) }
        }
    }

    /// Starts listening on `host:port`.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    package static func start(
        host: String, port: Int, configuration: HTTPServerConfiguration, responder: some HTTPResponder
    ) async throws(HTTPServerError) -> SandboxListener {
        let server = try await HTTPServer.start(host: host, port: port, configuration: configuration, responder: responder)
        return SandboxListener(host: host, server: server, configuration: configuration, responder: responder)
    }

    private init(host: String, server: HTTPServer, configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.host = host
        self.port = server.port
        self.configuration = configuration
        self.responder = responder
        var state = State()
        state.server = server
        self.state = Mutex(state)
    }

    /// Where the listener is now.
    package var phase: Phase { state.withLock { $0.lifecycle.phase } }

    /// Why a restart asked for now would be refused; nil when it may begin.
    package var restartRefusal: SandboxRestartError? { state.withLock { $0.lifecycle.restartRefusal } }

    /// Waits until the listener reaches `phase`, or is shut down; returns the phase reached.
    package func wait(until phase: Phase) async -> Phase {
        await withCheckedContinuation { continuation in
            let reached: Phase? = state.withLock { state in
                let current = state.lifecycle.phase
                if current == phase || current == .shutDown { return current }
                state.phaseWaiters.append((phase, continuation))
                return nil
            }
            if let reached { continuation.resume(returning: reached) }
        }
    }

    /// Restarts: `closingSessions` runs first (the realtime side closes its sockets its own way), then the listener
    /// and every connection close, nothing listens for `downtime` on `clock`, and then the listener starts again on
    /// the same port. Returns once it listens again. Cancelling the caller does not stop the restart.
    ///
    /// - Throws: `SandboxRestartError.alreadyRestarting` while another restart is under way, `.shutDown` when the
    ///   listener was or got shut down, `.cannotListen` when the port could not be bound again.
    package func restart(
        downtime: Duration, clock: any ChatterClock, closingSessions: @escaping @Sendable () async -> Void
    ) async throws(SandboxRestartError) {
        try await beginRestart(downtime: downtime, clock: clock, closingSessions: closingSessions).value.get()
    }

    /// Starts a restart as `restart` does, without waiting for it: the task it returns (which this listener also
    /// owns, so `shutdown()` ends it) says how it went.
    ///
    /// - Throws: `SandboxRestartError.alreadyRestarting` while another restart is under way, `.shutDown` after
    ///   `shutdown()`.
    @discardableResult
    package func beginRestart(
        downtime: Duration, clock: any ChatterClock, closingSessions: @escaping @Sendable () async -> Void
    ) throws(SandboxRestartError) -> Task<Result<Void, SandboxRestartError>, Never> {
        let (task, satisfied) = try state.withLock { state throws(SandboxRestartError) in
            try state.lifecycle.restartRequested()
            // The phase is `closing` now: wake whoever waits for it.
            let satisfied = state.change { _ in }
            let server = state.server
            state.server = nil
            let task = Task {
                await self.carryOutRestart(stopping: server, downtime: downtime, clock: clock, closingSessions: closingSessions)
            }
            state.restart = task
            return (task, satisfied)
        }
        resume(satisfied)
        return task
    }

    private func carryOutRestart(
        stopping server: HTTPServer?, downtime: Duration, clock: any ChatterClock,
        closingSessions: @Sendable () async -> Void
    ) async -> Result<Void, SandboxRestartError> {
        await closingSessions()
        await server?.shutdown()
        // The downtime's end is fixed before the phase says `down`, so a test that advances a virtual clock as soon
        // as it sees `down` moves past it.
        let end = clock.now.addingTimeInterval(downtime.timeInterval)
        resume(state.withLock { state in state.change { lifecycle in lifecycle.closed() } })
        do {
            try await clock.sleep(until: end)
        } catch {
            // Only `shutdown()` cancels this task.
            return .failure(.shutDown)
        }
        guard state.withLock({ $0.lifecycle.shouldListenAgain() }) else { return .failure(.shutDown) }
        let restarted: HTTPServer
        do {
            restarted = try await HTTPServer.start(host: host, port: port, configuration: configuration, responder: responder)
        } catch {
            resume(state.withLock { state in state.change { lifecycle in lifecycle.listenFailed() } })
            return .failure(.cannotListen(port: port, error))
        }
        let (kept, waiters) = state.withLock { state in
            var kept = false
            let waiters = state.change { lifecycle in kept = lifecycle.listened() }
            if kept { state.server = restarted }
            return (kept, waiters)
        }
        resume(waiters)
        if kept { return .success(()) }
        await restarted.shutdown()
        return .failure(.shutDown)
    }

    private func resume(_ waiters: [(PhaseWaiter, Phase)]) {
        for (continuation, phase) in waiters { continuation.resume(returning: phase) }
    }

    /// Stops listening for good: ends a restart under way (it does not listen again) and closes every connection.
    package func shutdown() async {
        let (server, restart, waiters) = state.withLock { state in
            let waiters = state.change { lifecycle in lifecycle.shutdownRequested() }
            defer { state.server = nil }
            return (state.server, state.restart, waiters)
        }
        resume(waiters)
        restart?.cancel()
        _ = await restart?.value
        await server?.shutdown()
    }
}
