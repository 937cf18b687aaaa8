import Foundation
import ChatterBots
import Testing
@testable import ExampleBotKinds

/// The exact texts the bot sends: confirmations, the list, alerts with the late note, and the fixed English wording.
@Suite("Reminder texts")
struct ReminderTextTests {
    func confirmation(_ message: String, in zone: TimeZone = Fixture.lisbon) throws -> String {
        ReminderConfirmation(try Fixture.reminder(message, in: zone), now: Fixture.sunday).text
    }

    // MARK: Confirmations

    @Test func aOneOffTodayNamesTheLocalTimeAndZone() throws {
        #expect(try confirmation("remind me in 10 minutes to stretch")
            == "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today.")
    }

    @Test func aOneOffTomorrowNamesTheDate() throws {
        #expect(try confirmation("remind me tomorrow at 9 to pay rent")
            == "Okay, I'll remind you to pay rent tomorrow, Mon 1 Dec at 09:00 (Europe/Lisbon).")
    }

    @Test func aOneOffLaterNamesTheDateAndTheYearWhenNotThisOne() throws {
        #expect(try confirmation("remind me on friday at 17:00 to leave early")
            == "Okay, I'll remind you to leave early on Fri 5 Dec at 17:00 (Europe/Lisbon).")
        #expect(try confirmation("remind me on 2026-12-24 at 8:00 to open gifts")
            == "Okay, I'll remind you to open gifts on Thu 24 Dec 2026 at 08:00 (Europe/Lisbon).")
    }

    @Test func theTimeIsTheLocalTimeOfThePersonsZone() throws {
        #expect(try confirmation("remind me at 18:30 to call mom", in: Fixture.kolkata)
            == "Okay, I'll remind you to call mom tomorrow, Mon 1 Dec at 18:30 (Asia/Kolkata).")
        #expect(try confirmation("remind me in 10 minutes to stretch", in: Fixture.newYork)
            == "Okay, I'll remind you to stretch at 09:40 (America/New_York) today.")
        #expect(try confirmation("remind me in 10 minutes to stretch", in: Fixture.utc)
            == "Okay, I'll remind you to stretch at 14:40 (UTC) today.")
    }

    @Test func aDailyReminderNamesItsTimeAndFirstDay() throws {
        #expect(try confirmation("remind me every day at 9:00 to stand up")
            == "Okay, I'll remind you to stand up every day at 09:00 (Europe/Lisbon), first on Mon 1 Dec.")
        #expect(try confirmation("remind me every day at 21:00 to read")
            == "Okay, I'll remind you to read every day at 21:00 (Europe/Lisbon), first today.")
    }

    @Test func aWeeklyReminderNamesItsWeekdays() throws {
        #expect(try confirmation("remind me every friday and monday at 10:00 to sync")
            == "Okay, I'll remind you to sync every Monday and Friday at 10:00 (Europe/Lisbon), first on Mon 1 Dec.")
        #expect(try confirmation("remind me every weekday at 8:30 to commute")
            == "Okay, I'll remind you to commute every weekday at 08:30 (Europe/Lisbon), first on Mon 1 Dec.")
        #expect(try confirmation("remind me every weekend at 10 to relax")
            == "Okay, I'll remind you to relax every Saturday and Sunday at 10:00 (Europe/Lisbon), first on Sat 6 Dec.")
    }

    @Test func anIntervalReminderNamesItsCadenceAndFirstTime() throws {
        #expect(try confirmation("remind me every 2 hours to drink water")
            == "Okay, I'll remind you to drink water every 2 hours, first at 16:30 (Europe/Lisbon) today.")
        #expect(try confirmation("remind me every 45 minutes to move")
            == "Okay, I'll remind you to move every 45 minutes, first at 15:15 (Europe/Lisbon) today.")
        #expect(try confirmation("remind me every hour to blink")
            == "Okay, I'll remind you to blink every hour, first at 15:30 (Europe/Lisbon) today.")
    }

    @Test func cancellationsAndTimeZoneChangesAreConfirmed() throws {
        let reminder = try Fixture.reminder("remind me in 10 minutes to stretch", in: Fixture.lisbon)
        #expect(ReminderConfirmation.cancelled(reminder, number: 2).text == "Okay, I cancelled reminder 2: stretch.")
        #expect(ReminderConfirmation.cancelledAll(count: 0).text == "You have no reminders to cancel.")
        #expect(ReminderConfirmation.cancelledAll(count: 1).text == "Okay, I cancelled your only reminder.")
        #expect(ReminderConfirmation.cancelledAll(count: 3).text == "Okay, I cancelled all 3 of your reminders.")
        #expect(ReminderConfirmation.timeZoneSet(Fixture.kolkata, now: Fixture.sunday).text
            == "Okay, your time zone is now Asia/Kolkata, where it's 20:00.")
    }

    // MARK: List

    @Test func theListNumbersRemindersWithTheirNextTimeAndCadence() throws {
        let reminders = [
            try Fixture.reminder("remind me in 10 minutes to stretch", in: Fixture.lisbon),
            try Fixture.reminder("remind me every 2 hours to water the plants", in: Fixture.lisbon),
            try Fixture.reminder("remind me every day at 9:00 to stand up", in: Fixture.lisbon),
            try Fixture.reminder("remind me every day at 9:00 to call Ann", in: Fixture.newYork),
            try Fixture.reminder("remind me on friday at 17:00 to leave", in: Fixture.lisbon),
            try Fixture.reminder("remind me on 2026-12-24 at 8:00 to open gifts", in: Fixture.lisbon),
        ]
        #expect(ReminderList(reminders, timeZone: Fixture.lisbon).text(now: Fixture.sunday) == """
            Your reminders (Europe/Lisbon):
            1. stretch — today 14:40
            2. water the plants — today 16:30, every 2 hours
            3. stand up — tomorrow 09:00, every day
            4. call Ann — tomorrow 09:00 (America/New_York), every day
            5. leave — Fri 5 Dec 17:00
            6. open gifts — Thu 24 Dec 2026 08:00
            """)
    }

    @Test func anEmptyListSaysHowToSetOne() {
        #expect(ReminderList([], timeZone: Fixture.lisbon).text(now: Fixture.sunday)
            == "You have no reminders. Set one with 'remind me in 10 minutes to stretch'.")
    }

    @Test func aNumberFindsItsPositionAndOneBeyondTheListIsRefused() throws {
        let reminder = try Fixture.reminder("remind me in 10 minutes to stretch", in: Fixture.lisbon)
        let list = ReminderList([reminder, reminder, reminder], timeZone: Fixture.lisbon)
        #expect(try list.index(ofNumber: 3) == 2)
        let error = Fixture.error { () throws(ReminderCommandError) in try list.index(ofNumber: 4) }
        #expect(error?.message == "There's no reminder 4: you have 3 reminders. Say 'list' to see them.")
        let empty = Fixture.error { () throws(ReminderCommandError) in try ReminderList([], timeZone: Fixture.utc).index(ofNumber: 1) }
        #expect(empty?.message == "You have no reminders, so there's no reminder 1.")
    }

    // MARK: Alerts

    func reminderDue(_ due: String, in zone: TimeZone = Fixture.lisbon) -> Reminder {
        let at = Fixture.instant(due)
        return Reminder(task: "stretch", schedule: .once(in: zone), due: at)
    }

    @Test func anAlertOnTimeIsJustTheTask() {
        let alert = ReminderAlert(reminderDue("2025-11-30T14:40:00Z"), firedAt: Fixture.instant("2025-11-30T14:40:05Z"))
        #expect(alert.text == "Reminder: stretch")
        #expect(!alert.isLate)
    }

    @Test func anAlertWithinTheGracePeriodIsNotLate() {
        let alert = ReminderAlert(reminderDue("2025-11-30T14:40:00Z"), firedAt: Fixture.instant("2025-11-30T14:42:00Z"))
        #expect(alert.text == "Reminder: stretch")
    }

    @Test func anAlertBeyondTheGracePeriodSaysWhenItWasDue() {
        let alert = ReminderAlert(reminderDue("2025-11-30T14:40:00Z"), firedAt: Fixture.instant("2025-11-30T14:42:01Z"))
        #expect(alert.text == "Reminder: stretch (late: I was offline at 14:40)")
        #expect(alert.isLate)
    }

    @Test func theLateNoteNamesTheDayWhenItWasNotToday() {
        #expect(ReminderAlert(reminderDue("2025-11-29T14:40:00Z"), firedAt: Fixture.sunday).text
            == "Reminder: stretch (late: I was offline at 14:40 yesterday)")
        #expect(ReminderAlert(reminderDue("2025-11-28T14:40:00Z"), firedAt: Fixture.sunday).text
            == "Reminder: stretch (late: I was offline on Fri 28 Nov at 14:40)")
    }

    @Test func theLateNoteUsesTheRemindersZoneAndTheGivenGrace() {
        let alert = ReminderAlert(
            reminderDue("2025-11-30T14:19:00Z", in: Fixture.newYork), firedAt: Fixture.sunday, grace: .seconds(600))
        #expect(alert.text == "Reminder: stretch (late: I was offline at 09:19)")
        let lenient = ReminderAlert(reminderDue("2025-11-30T14:20:00Z"), firedAt: Fixture.sunday, grace: .seconds(3_600))
        #expect(!lenient.isLate)
    }

    // MARK: Wording

    @Test func dateLabelsMatchTheEnUSPOSIXFormatterWhateverTheMachinesLocale() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = Fixture.utc
        formatter.dateFormat = "EEE d MMM HH:mm"
        let today = Fixture.date(2025, 1, 1)
        for day in 0..<400 {
            let instant = Fixture.instant("2025-01-01T07:05:00Z").addingTimeInterval(TimeInterval(day * 86_400 + day * 60))
            let date = Fixture.utc.localDate(at: instant)
            guard date.year == 2025 else { continue }
            let ours = "\(ReminderWording.dateLabel(date, today: today)) \(ReminderWording.clock(instant, in: Fixture.utc))"
            #expect(ours == formatter.string(from: instant))
        }
    }
}
