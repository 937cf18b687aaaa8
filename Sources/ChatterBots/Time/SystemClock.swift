import Foundation

/// The real clock: `now` is the system's wall-clock time and sleeps suspend on `ContinuousClock`.
///
/// A sleep measures the remaining time with the wall clock and waits it out on the monotonic clock in slices
/// of at most a day, so a wall-clock jump is noticed at the latest one slice later.
public struct SystemClock: ChatterClock {
    /// Creates the real clock.
    public init() {}

    /// The system's wall-clock time.
    public var now: Date { Date() }

    /// Sleeps until the wall clock reads `deadline`, in slices of at most a day.
    public func sleep(until deadline: Date) async throws {
        try await sleepOnContinuousClock { deadline.timeIntervalSinceNow }
    }
}
