import ChatterBots
import Foundation
import Synchronization

/// Carries out `HeartbeatMonitor` on one connection: wakes at the monitor's deadlines on the clock, sends `ping`,
/// reports the `pong`, and calls `onDead` when no pong came within the pong timeout. Runs in its own task, so no
/// handler and no backlog delays it. Bot sessions and the terminal client both keep their connections alive with it.
package final class HeartbeatDriver: Sendable {
    private let monitor: Mutex<HeartbeatMonitor>
    private let clock: any ChatterClock
    private let log: SessionLog
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init(pongTimeout: Duration, clock: any ChatterClock, log: SessionLog) {
        self.monitor = Mutex(HeartbeatMonitor(pongTimeout: pongTimeout))
        self.clock = clock
        self.log = log
    }

    /// Starts the heartbeat of `connection`, pinging every `interval`.
    package func start(_ connection: ChatterRealtimeConnection, interval: Duration, onDead: @escaping @Sendable () -> Void) {
        let now = clock.now
        _ = monitor.withLock { $0.handle(.ready(interval: interval, now: now)) }
        let started = Task(executorPreference: SessionExecutor.preferred) { await self.run(connection, onDead: onDead) }
        task.withLock { $0 = started }
    }

    package func stop() {
        task.withLock { $0 }?.cancel()
    }

    private func run(_ connection: ChatterRealtimeConnection, onDead: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            guard let deadline = monitor.withLock({ $0.nextDeadline }) else { return }
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            let now = clock.now
            let actions = monitor.withLock { $0.handle(.tick(now: now)) }
            for action in actions {
                switch action {
                case .sendPing:
                    let sent = clock.now
                    _ = monitor.withLock { $0.handle(.pingSent(now: sent)) }
                    ping(connection)
                case .connectionDead(let sentAt):
                    log.warning("no pong within the deadline (ping sent at \(Timestamp(sentAt).iso8601)): the connection is dead")
                    onDead()
                    return
                case .idleCloseLikely(let lastSentAt):
                    log.warning("nothing sent since \(Timestamp(lastSentAt).iso8601): the server may close the connection as idle")
                }
            }
        }
    }

    private func ping(_ connection: ChatterRealtimeConnection) {
        let pongTimeout = monitor.withLock { $0.pongTimeout }
        Task(executorPreference: SessionExecutor.preferred) {
            do {
                // The monitor decides when the connection is dead; this wait only ends the request.
                try await connection.ping(timeout: pongTimeout + pongTimeout)
                let now = self.clock.now
                _ = self.monitor.withLock { $0.handle(.pongReceived(now: now)) }
            } catch {
                // Closed or timed out: the reader or the monitor reports it.
            }
        }
    }
}
