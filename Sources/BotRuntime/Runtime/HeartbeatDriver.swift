import ChatterBots
import Foundation
import Synchronization

/// Carries out `HeartbeatMonitor` on one connection: at the monitor's deadlines, which the session's
/// `DeadlineScheduler` keeps, it sends `ping` straight from the deadline's action (no task, no request: the
/// monitor's pong deadline is the only timeout), hears each `pong` on the connection's reader, and calls `onDead`
/// when no pong came within the pong timeout. No handler and no backlog delays it, and it ends with the connection.
/// Bot sessions and the terminal client both keep their connections alive with it. One driver serves one connection.
package final class HeartbeatDriver: Sendable {
    private struct Running {
        var connection: ChatterRealtimeConnection
        var onDead: @Sendable () -> Void
    }

    /// Who waits for the pong of the ping in flight (`waitUntilAnswered`), and whether the heartbeat stopped.
    private struct PongWait {
        var waiters: [CheckedContinuation<Void, Never>] = []
        var isStopped = false
    }

    private let monitor: Mutex<HeartbeatMonitor>
    private let running = Mutex<Running?>(nil)
    private let pongWait = Mutex(PongWait())
    private let pings = Atomic<Int>(0)
    private let pongs = Atomic<Int>(0)
    private let clock: any ChatterClock
    private let log: SessionLog
    private let timers: DeadlineScheduler<SessionDeadline>
    private let key: SessionDeadline

    /// A driver for the connection of `generation`, whose deadlines go to `timers`.
    package init(
        pongTimeout: Duration, clock: any ChatterClock, log: SessionLog, timers: DeadlineScheduler<SessionDeadline>,
        generation: UInt64
    ) {
        self.monitor = Mutex(HeartbeatMonitor(pongTimeout: pongTimeout))
        self.clock = clock
        self.log = log
        self.timers = timers
        self.key = .heartbeat(generation: generation)
    }

    /// How many pings the driver has written to its connection.
    package var pingsWritten: Int { pings.load(ordering: .acquiring) }

    /// How many of its pings were answered. The service reads a connection's frames in order, so the `n`th pong
    /// proves that every frame written before the `n`th ping arrived.
    package var pongsReceived: Int { min(pongs.load(ordering: .acquiring), pingsWritten) }

    /// Starts pinging `connection` every `interval` and hearing its pongs. `onDead` runs once, when the connection
    /// is dead, and the heartbeat then stops.
    package func start(_ connection: ChatterRealtimeConnection, interval: Duration, onDead: @escaping @Sendable () -> Void) {
        let now = clock.now
        running.withLock { $0 = Running(connection: connection, onDead: onDead) }
        _ = monitor.withLock { $0.handle(.ready(interval: interval, now: now)) }
        connection.observePongs { [self] in pongReceived() }
        rearm()
    }

    /// Stops the heartbeat: its deadline is dropped and no ping goes out any more.
    package func stop() {
        running.withLock { $0 = nil }
        timers.cancel(key)
        let waiters = pongWait.withLock { wait in
            wait.isStopped = true
            defer { wait.waiters = [] }
            return wait.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether a ping sent waits for its pong (false once the heartbeat stopped).
    package var awaitsPong: Bool {
        pongWait.withLock { wait in !wait.isStopped && monitor.withLock { $0.awaitsPong } }
    }

    /// Returns once no ping waits for its pong: at once when none does, else when the pong comes or the heartbeat
    /// stops. Part of a session's idleness: on a virtual clock, time must not pass a pong deadline while the pong is
    /// still on its way.
    package func waitUntilAnswered() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isAnswered = pongWait.withLock { wait -> Bool in
                guard !wait.isStopped, monitor.withLock({ $0.awaitsPong }) else { return true }
                wait.waiters.append(continuation)
                return false
            }
            if isAnswered { continuation.resume() }
        }
    }

    /// Sends a `ping` now, besides the schedule, and returns true once it is answered: every frame the service
    /// wrote to the connection before it read this ping has then been read (and routed). False, at once or when the
    /// heartbeat stops, when no connection runs. For a test harness that must know the bot has seen what a test
    /// user caused.
    @discardableResult
    package func roundTrip() async -> Bool {
        guard let running = running.withLock({ $0 }) else { return false }
        let now = clock.now
        _ = monitor.withLock { $0.handle(.pingSent(now: now)) }
        let target = pings.add(1, ordering: .releasing).newValue
        guard (try? running.connection.sendPingWithoutWaiting()) != nil else {
            pings.subtract(1, ordering: .releasing)
            return false
        }
        rearm()
        func isAnswered(_ wait: PongWait) -> Bool { wait.isStopped || pongs.load(ordering: .acquiring) >= target }
        while !pongWait.withLock({ isAnswered($0) }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let answered = pongWait.withLock { wait -> Bool in
                    if isAnswered(wait) { return true }
                    wait.waiters.append(continuation)
                    return false
                }
                if answered { continuation.resume() }
            }
        }
        return pongs.load(ordering: .acquiring) >= target
    }

    private func rearm() {
        guard let deadline = monitor.withLock({ $0.nextDeadline }) else { return }
        timers.schedule(key, at: deadline) { [self] in tick() }
    }

    /// The monitor's deadline came: carries out what it says, then waits for its next deadline.
    private func tick() {
        guard let running = running.withLock({ $0 }) else { return }
        let now = clock.now
        let actions = monitor.withLock { $0.handle(.tick(now: now)) }
        for action in actions {
            switch action {
            case .sendPing:
                _ = monitor.withLock { $0.handle(.pingSent(now: now)) }
                // A connection that is closing refuses it; its reader reports the end, or the pong deadline does.
                // Counted before it is written, so that its pong can never be counted first.
                pings.add(1, ordering: .releasing)
                if (try? running.connection.sendPingWithoutWaiting()) == nil { pings.subtract(1, ordering: .releasing) }
            case .connectionDead(let sentAt):
                log.warning("no pong within the deadline (ping sent at \(Timestamp(sentAt).iso8601)): the connection is dead")
                stop()
                running.onDead()
                return
            case .idleCloseLikely(let lastSentAt):
                log.warning("nothing sent since \(Timestamp(lastSentAt).iso8601): the server may close the connection as idle")
            }
        }
        rearm()
    }

    /// A pong arrived: the pong deadline goes, and the scheduler waits for the next ping instead.
    private func pongReceived() {
        pongs.add(1, ordering: .releasing)
        let now = clock.now
        let moved = monitor.withLock { monitor -> Bool in
            let before = monitor.nextDeadline
            _ = monitor.handle(.pongReceived(now: now))
            return monitor.nextDeadline != before
        }
        let waiters = pongWait.withLock { wait in
            defer { wait.waiters = [] }
            return wait.waiters
        }
        for waiter in waiters { waiter.resume() }
        guard moved, running.withLock({ $0 != nil }) else { return }
        rearm()
    }
}
