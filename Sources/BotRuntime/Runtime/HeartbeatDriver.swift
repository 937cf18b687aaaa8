import ChatterBots
import Foundation
import Synchronization

/// Carries out `HeartbeatMonitor` on one connection: wakes at the monitor's deadlines on the clock, sends `ping`,
/// reports the `pong`, and calls `onDead` when no pong came within the pong timeout. It runs as a child of the
/// connection's `ConnectionScope`, so no handler and no backlog delays it, and it ends with the connection. Bot
/// sessions and the terminal client both keep their connections alive with it.
/// One driver serves one connection.
package final class HeartbeatDriver: Sendable {
    private let monitor: Mutex<HeartbeatMonitor>
    private let pongTimeout: Duration
    private let clock: any ChatterClock
    private let log: SessionLog

    package init(pongTimeout: Duration, clock: any ChatterClock, log: SessionLog) {
        self.monitor = Mutex(HeartbeatMonitor(pongTimeout: pongTimeout))
        self.pongTimeout = pongTimeout
        self.clock = clock
        self.log = log
    }

    /// Pings `connection` every `interval` until the calling task is cancelled, or until the connection is dead:
    /// then `onDead` runs and this returns. Each ping's wait for its pong is a child of this call.
    package func run(
        _ connection: ChatterRealtimeConnection, interval: Duration, onDead: @Sendable () async -> Void
    ) async {
        let start = clock.now
        _ = monitor.withLock { $0.handle(.ready(interval: interval, now: start)) }
        await withDiscardingTaskGroup { pings in
            defer { pings.cancelAll() }
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
                        pings.addTask { await self.ping(connection) }
                    case .connectionDead(let sentAt):
                        log.warning("no pong within the deadline (ping sent at \(Timestamp(sentAt).iso8601)): the connection is dead")
                        await onDead()
                        return
                    case .idleCloseLikely(let lastSentAt):
                        log.warning("nothing sent since \(Timestamp(lastSentAt).iso8601): the server may close the connection as idle")
                    }
                }
            }
        }
    }

    private func ping(_ connection: ChatterRealtimeConnection) async {
        do {
            // The monitor decides when the connection is dead; this wait only ends the request.
            try await connection.ping(timeout: pongTimeout + pongTimeout)
            let now = clock.now
            _ = monitor.withLock { $0.handle(.pongReceived(now: now)) }
        } catch {
            // Closed or timed out: the reader or the monitor reports it.
        }
    }
}
