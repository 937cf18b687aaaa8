@testable import BotRuntime
import Foundation
import Testing

@Suite("DeadlineSchedule")
struct DeadlineScheduleTests {
    let t0 = Date(timeIntervalSince1970: 1_767_225_600)
    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    @Test func anEmptyScheduleHasNoDeadlineAndNothingDue() {
        var schedule = DeadlineSchedule<String>()
        #expect(schedule.earliest == nil)
        #expect(schedule.takeDue(at: at(1_000)) == [])
    }

    @Test func theEarliestDeadlineComesFirstWhateverTheOrderOfScheduling() {
        var schedule = DeadlineSchedule<String>()
        schedule.schedule("heartbeat", at: at(25))
        schedule.schedule("lifecycle", at: at(10))
        schedule.schedule("typing", at: at(3))
        #expect(schedule.earliest == at(3))
        #expect(schedule.takeDue(at: at(30)) == ["typing", "lifecycle", "heartbeat"])
    }

    @Test func onlyDeadlinesAtOrBeforeNowAreDueAndTheRestStay() {
        var schedule = DeadlineSchedule<String>()
        schedule.schedule("a", at: at(5))
        schedule.schedule("b", at: at(10))
        #expect(schedule.takeDue(at: at(4.999)) == [])
        #expect(schedule.takeDue(at: at(5)) == ["a"])
        #expect(schedule.earliest == at(10))
        #expect(schedule.count == 1)
    }

    @Test func deadlinesAtTheSameInstantComeOutInTheOrderTheyWereScheduled() {
        var schedule = DeadlineSchedule<String>()
        schedule.schedule("first", at: at(5))
        schedule.schedule("second", at: at(5))
        schedule.schedule("third", at: at(5))
        #expect(schedule.takeDue(at: at(5)) == ["first", "second", "third"])
    }

    @Test func schedulingAKeyAgainReplacesItsDeadline() {
        var schedule = DeadlineSchedule<String>()
        schedule.schedule("heartbeat", at: at(25))
        schedule.schedule("heartbeat", at: at(35))
        #expect(schedule.count == 1)
        #expect(schedule.deadline(of: "heartbeat") == at(35))
        #expect(schedule.takeDue(at: at(30)) == [])
    }

    @Test func aCancelledKeyIsNeverDue() {
        var schedule = DeadlineSchedule<String>()
        schedule.schedule("lifecycle", at: at(10))
        schedule.schedule("heartbeat", at: at(25))
        schedule.cancel("lifecycle")
        #expect(schedule.earliest == at(25))
        #expect(schedule.takeDue(at: at(60)) == ["heartbeat"])
    }

    @Test func aTakenDeadlineIsGone() {
        var schedule = DeadlineSchedule<String>()
        schedule.schedule("a", at: at(1))
        _ = schedule.takeDue(at: at(1))
        #expect(schedule.deadline(of: "a") == nil)
        #expect(schedule.takeDue(at: at(2)) == [])
    }
}
