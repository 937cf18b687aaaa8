import Foundation

/// Real time scaled by a factor (100× turns a 25 s heartbeat into 0.25 s): for end-to-end tests over real
/// sockets, where a manual clock cannot know when I/O is quiescent but hours of bot life must pass quickly.
///
/// Virtual time starts at `origin` when the clock is created and advances `factor` times faster than the
/// monotonic clock. Copies share the same timeline, so a runtime and a sandbox handed the same value agree.
public struct AcceleratedClock: ChatterClock {
    /// How many virtual seconds pass per real second.
    public let factor: Double
    /// The virtual time at the moment the clock was created.
    public let origin: Date
    private let realOrigin: ContinuousClock.Instant

    /// Creates a clock running `factor` times faster than real time, starting at `origin`.
    ///
    /// - Precondition: `factor` is finite and greater than zero (a programming error otherwise, not input data).
    public init(factor: Double, origin: Date = Date()) {
        precondition(factor.isFinite && factor > 0, "AcceleratedClock needs a finite factor > 0, got \(factor)")
        self.factor = factor
        self.origin = origin
        self.realOrigin = ContinuousClock.now
    }

    /// The virtual time: `origin` plus `factor` times the real time since the clock was created.
    public var now: Date {
        origin.addingTimeInterval((ContinuousClock.now - realOrigin).clockSeconds * factor)
    }

    /// Sleeps the real time that makes virtual time reach `deadline`.
    public func sleep(until deadline: Date) async throws {
        try await sleepOnContinuousClock { deadline.timeIntervalSince(now) / factor }
    }
}
