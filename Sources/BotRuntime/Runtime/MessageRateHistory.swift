import Foundation

/// A bot's messages per minute over the last hour, for the console's chart: 60 one-minute buckets in a ring, the
/// newest one's minute, and a counter per bucket. Buckets the clock has moved past read as zero.
struct MessageRateHistory: Sendable, Equatable {
    /// How many minutes it keeps.
    static let minutes = 60

    private var counts = [Int](repeating: 0, count: MessageRateHistory.minutes)
    /// The minute (since 1970) of the newest bucket; nil before the first message.
    private var newestMinute: Int?

    init() {}

    /// Counts `count` messages at `date`. A date before the newest bucket's minute (the clock stepped back) counts
    /// in the newest bucket.
    mutating func record(_ count: Int = 1, at date: Date) {
        let minute = Self.minute(of: date)
        advance(to: minute)
        counts[Self.slot(max(minute, newestMinute ?? minute))] += count
    }

    /// The counts of the 60 minutes ending with the one holding `date`, oldest first.
    func perMinute(at date: Date) -> [Int] {
        let minute = Self.minute(of: date)
        var copy = self
        copy.advance(to: minute)
        let newest = max(minute, copy.newestMinute ?? minute)
        return (0..<Self.minutes).map { copy.counts[Self.slot(newest - Self.minutes + 1 + $0)] }
    }

    /// Moves the newest bucket to `minute`, emptying the buckets of the minutes skipped.
    private mutating func advance(to minute: Int) {
        guard let newest = newestMinute else {
            newestMinute = minute
            return
        }
        guard minute > newest else { return }
        for step in 1...min(minute - newest, Self.minutes) { counts[Self.slot(newest + step)] = 0 }
        newestMinute = minute
    }

    private static func minute(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 60).rounded(.down))
    }

    private static func slot(_ minute: Int) -> Int {
        ((minute % minutes) + minutes) % minutes
    }
}
