import Foundation
import WebSocket

/// The source of time for every timer of the runtime and the sandbox (backoff, heartbeat, handler timeouts,
/// schedules, typing expiry, presence grace), so tests can substitute a virtual clock and run hours in milliseconds.
///
/// Time is a `Date` because schedules and the wire format are wall-clock times. Implementations never block a
/// thread: `sleep(until:)` suspends the calling task.
public protocol ChatterClock: Sendable {
    /// The current time on this clock.
    var now: Date { get }

    /// Suspends the calling task until this clock reaches `deadline`; returns at once for a deadline already passed.
    ///
    /// - Throws: `CancellationError` as soon as the calling task is cancelled, before or during the wait.
    func sleep(until deadline: Date) async throws
}

extension ChatterClock {
    /// Suspends the calling task for `duration` of this clock's time (a virtual duration on a virtual clock).
    ///
    /// - Throws: `CancellationError` as soon as the calling task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now.addingTimeInterval(duration.clockSeconds))
    }
}

extension Duration {
    /// This duration in seconds, as Foundation's `TimeInterval`.
    var clockSeconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) * 1e-18
    }
}

/// Sleeps on the real continuous clock in slices, re-reading `remaining` after each slice, so a far deadline (even
/// `Date.distantFuture`) never overflows `Task.sleep` and a cancelled task wakes at once. On an event loop's thread
/// (where sessions run) the loop's own timer wakes it, with no thread of the global pool involved; its slices are
/// an hour at most, since a cancelled loop timer stays in the loop's heap until its deadline.
func sleepOnContinuousClock(remaining: () -> TimeInterval) async throws {
    let slice: TimeInterval = 86_400
    let loopSlice: TimeInterval = 3_600
    while true {
        try Task.checkCancellation()
        let seconds = remaining()
        // `!(seconds > 0)` also ends the wait for a NaN deadline instead of sleeping on garbage.
        guard seconds > 0 else { return }
        if try await EventLoopSleep.sleep(for: .seconds(min(seconds, loopSlice))) { continue }
        try await Task.sleep(for: .seconds(min(seconds, slice)), tolerance: nil, clock: .continuous)
    }
}
