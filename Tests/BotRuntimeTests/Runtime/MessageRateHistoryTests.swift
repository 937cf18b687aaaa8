@testable import BotRuntime
import Foundation
import Testing

@Suite("messages per minute over the last hour")
struct MessageRateHistoryTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)  // 08:00:00 UTC, a minute's start

    @Test func messagesOfTheCurrentMinuteAreTheLastOfSixtyValues() {
        var history = MessageRateHistory()
        history.record(at: start)
        history.record(2, at: start.addingTimeInterval(59))
        let values = history.perMinute(at: start.addingTimeInterval(30))
        #expect(values.count == 60)
        #expect(values.last == 3)
        #expect(values.dropLast().allSatisfy { $0 == 0 })
    }

    @Test func eachMinuteKeepsItsOwnCountAndMinutesWithoutMessagesAreZero() {
        var history = MessageRateHistory()
        history.record(4, at: start)
        history.record(1, at: start.addingTimeInterval(60))
        history.record(2, at: start.addingTimeInterval(180))
        #expect(history.perMinute(at: start.addingTimeInterval(200)).suffix(4) == [4, 1, 0, 2])
    }

    @Test func minutesOlderThanAnHourAreForgotten() {
        var history = MessageRateHistory()
        history.record(5, at: start)
        history.record(1, at: start.addingTimeInterval(59 * 60))
        #expect(history.perMinute(at: start.addingTimeInterval(59 * 60)).first == 5)
        #expect(history.perMinute(at: start.addingTimeInterval(60 * 60)).reduce(0, +) == 1)
        history.record(1, at: start.addingTimeInterval(3 * 3600))
        #expect(history.perMinute(at: start.addingTimeInterval(3 * 3600)) == Array(repeating: 0, count: 59) + [1])
    }

    @Test func aClockSteppingBackCountsInTheNewestMinute() {
        var history = MessageRateHistory()
        history.record(1, at: start.addingTimeInterval(120))
        history.record(1, at: start)
        #expect(history.perMinute(at: start.addingTimeInterval(120)).suffix(3) == [0, 0, 2])
    }
}
