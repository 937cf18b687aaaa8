import Foundation

/// The real clock: `now` is the system's wall-clock time and sleeps suspend on `ContinuousClock`.
///
/// A sleep measures the remaining time with the wall clock and waits it out on the monotonic clock in slices
/// of at most a day, so a wall-clock jump is noticed at the latest one slice later.
public struct SystemClock: ChatterClock {
    /// Creates the real clock.
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        try await sleepOnContinuousClock { deadline.timeIntervalSinceNow }
    }
}
