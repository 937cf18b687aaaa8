import Foundation
import ChatterBots
import Testing
@testable import ExampleBotKinds

/// What the parser makes of messages: commands, timings, verbatim tasks, and errors that name what was not understood.
@Suite("ReminderCommandParser")
struct ReminderCommandParserTests {
    let parser = Fixture.parser

    func parseError(_ message: String) -> ReminderCommandError? {
        Fixture.error { () throws(ReminderCommandError) in try parser.parse(message) }
    }

    // MARK: Commands

    @Test(arguments: ["list", "list reminders", "List my reminders", "reminders", "my reminders", "show reminders", "  LIST   REMINDERS. "])
    func listPhrasesListTheReminders(message: String) throws {
        #expect(try parser.parse(message) == .list)
    }

    @Test(arguments: ["help", "Help.", "?", "/help"])
    func helpPhrasesAskForHelp(message: String) throws {
        #expect(try parser.parse(message) == .help)
    }

    @Test(arguments: [("cancel 2", 2), ("Cancel reminder 3.", 3), ("cancel #12", 12), ("delete 1", 1), ("remove  4", 4)])
    func cancelTakesTheNumberShownByTheList(message: String, number: Int) throws {
        #expect(try parser.parse(message) == .cancel(number: number))
    }

    @Test func cancelAllCancelsEveryReminder() throws {
        #expect(try parser.parse("cancel all") == .cancelAll)
        #expect(try parser.parse("Cancel all reminders.") == .cancelAll)
    }

    @Test(arguments: [("cancel x", "x"), ("cancel 0", "0"), ("cancel -1", "-1"), ("cancel 2 3", "2 3"), ("cancel", "")])
    func cancelWithoutAPositiveNumberSaysWhatItCouldNotRead(message: String, written: String) {
        #expect(parseError(message) == .unreadableReminderNumber(written))
    }

    @Test func cancelXSaysExactlyWhichNumberItCouldNotRead() {
        #expect(parseError("cancel x")?.message
            == "I couldn't read the reminder number 'x'. Say e.g. 'cancel 2', with the number shown by 'list'.")
    }

    @Test(arguments: [
        ("timezone Europe/Lisbon", "Europe/Lisbon"), ("timezone europe/lisbon", "Europe/Lisbon"),
        ("time zone America/New York", "America/New_York"), ("tz Asia/Kolkata", "Asia/Kolkata"),
        ("set timezone to Lisbon", "Europe/Lisbon"), ("timezone new york.", "America/New_York"),
    ])
    func timezoneAcceptsIANANamesCaseInsensitively(message: String, identifier: String) throws {
        #expect(try parser.parse(message) == .setTimeZone(Fixture.zone(identifier)))
    }

    @Test func timezoneUTCIsUTC() throws {
        guard case .setTimeZone(let zone) = try parser.parse("timezone UTC") else {
            Issue.record("not a time zone command")
            return
        }
        #expect(zone.secondsFromGMT(for: Fixture.sunday) == 0)
        #expect(zone.nextDaylightSavingTimeTransition(after: Fixture.sunday) == nil)
    }

    @Test(arguments: ["Mars/Olympus", "EST", "GMT+1", "Lisbn"])
    func anUnknownTimeZoneIsRefusedWithItsName(name: String) {
        #expect(parseError("timezone \(name)") == .unknownTimeZone(name))
    }

    @Test func anUnknownTimeZoneSaysWhatToUseInstead() {
        #expect(parseError("timezone Mars/Olympus")?.message
            == "I don't know the time zone 'Mars/Olympus'. Use an IANA name like Europe/Lisbon or America/New_York.")
        #expect(parseError("timezone")?.message
            == "Which time zone? Say e.g. 'timezone Europe/Lisbon' or 'timezone America/New_York'.")
    }

    @Test(arguments: ["hello", "", "   ", "remind", "remind mom at 9 to call", "what time is it?", "list of groceries"])
    func anythingElseIsUnrecognizedWithTheUsageText(message: String) throws {
        #expect(try parser.parse(message) == .unrecognized(usage: ReminderCommandParser.usage))
    }

    // MARK: Reminders

    @Test func theTaskIsKeptVerbatimInItsOriginalCase() throws {
        let request = try Fixture.request("REMIND ME AT 18:30 TO Call Mom about the iPhone")
        #expect(request.task == "Call Mom about the iPhone")
        #expect(request.timing == .once(at: Fixture.time(18, 30), on: .todayOrTomorrow))
    }

    @Test func extraSpacesAndATrailingPeriodAreTolerated() throws {
        let request = try Fixture.request("   remind   me   in  10   minutes   to stretch.  ")
        #expect(request == ReminderRequest(task: "stretch", timing: .after(ReminderDelay(seconds: 600))))
    }

    @Test func aTaskFirstTimingIsFoundAtTheEndSoTheTaskMayContainAt() throws {
        let request = try Fixture.request("remind me to meet Ann at the station at 18:30")
        #expect(request == ReminderRequest(task: "meet Ann at the station", timing: .once(at: Fixture.time(18, 30), on: .todayOrTomorrow)))
    }

    @Test func aTaskMayContainTo() throws {
        let request = try Fixture.request("remind me in 2 hours to go to the bank")
        #expect(request.task == "go to the bank")
    }

    @Test func aWhenFirstReminderMayLeaveOutTo() throws {
        let request = try Fixture.request("remind me at 18:30 call mom")
        #expect(request == ReminderRequest(task: "call mom", timing: .once(at: Fixture.time(18, 30), on: .todayOrTomorrow)))
    }

    @Test func punctuationAroundTheTimingIsIgnored() throws {
        #expect(try Fixture.request("remind me in 10 minutes: stretch")
            == ReminderRequest(task: "stretch", timing: .after(ReminderDelay(seconds: 600))))
        #expect(try Fixture.request("remind me to stretch, at 18:30")
            == ReminderRequest(task: "stretch", timing: .once(at: Fixture.time(18, 30), on: .todayOrTomorrow)))
    }

    @Test(arguments: [
        ("tomorrow", ReminderTiming.once(at: Fixture.time(9), on: .tomorrow)),
        ("tomorrow at 9", .once(at: Fixture.time(9), on: .tomorrow)),
        ("on friday", .once(at: Fixture.time(9), on: .weekday(.friday))),
        ("on fri at 17:00", .once(at: Fixture.time(17), on: .weekday(.friday))),
        ("next friday at 9", .once(at: Fixture.time(9), on: .nextWeekday(.friday))),
        ("on 2026-12-24 at 8:00", .once(at: Fixture.time(8), on: .date(Fixture.date(2026, 12, 24)))),
        ("on the 24th of december at 8", .once(at: Fixture.time(8), on: .dayOfYear(month: 12, day: 24))),
        ("at midnight", .once(at: .midnight, on: .todayOrTomorrow)),
        ("at 9 o'clock", .once(at: Fixture.time(9), on: .todayOrTomorrow)),
        ("at 9.30", .once(at: Fixture.time(9, 30), on: .todayOrTomorrow)),
        ("at 12pm", .once(at: .noon, on: .todayOrTomorrow)),
        ("every day", .daily(at: Fixture.time(9))),
        ("every day at 9:00", .daily(at: Fixture.time(9))),
        ("at 7:45 every day", .daily(at: Fixture.time(7, 45))),
        ("every monday at 10:00", .weekly(on: [.monday], at: Fixture.time(10))),
        ("on mondays at 10", .weekly(on: [.monday], at: Fixture.time(10))),
        ("every monday, wednesday and friday at 7", .weekly(on: [.monday, .wednesday, .friday], at: Fixture.time(7))),
        ("every weekday at 8:30", .weekly(on: Weekday.workdays, at: Fixture.time(8, 30))),
        ("every weekend at 10", .weekly(on: Weekday.weekend, at: Fixture.time(10))),
        ("every 2 hours", .every(minutes: 120)),
        ("every hour", .every(minutes: 60)),
        ("hourly", .every(minutes: 60)),
        ("every 1.5 hours", .every(minutes: 90)),
        ("every 45 min", .every(minutes: 45)),
        ("in 1 hour, 30 minutes", .after(ReminderDelay(seconds: 5_400))),
        ("in 3 days", .after(ReminderDelay(days: 3))),
        ("in 1 day and 2 hours", .after(ReminderDelay(days: 1, seconds: 7_200))),
        ("in 2 weeks", .after(ReminderDelay(days: 14))),
        ("in 1.5 days", .after(ReminderDelay(days: 1, seconds: 43_200))),
    ])
    func timingsAreReadAsDocumented(phrase: String, timing: ReminderTiming) throws {
        #expect(try Fixture.request("remind me \(phrase) to stretch").timing == timing)
    }

    @Test func aParserMayUseAnotherDefaultTime() throws {
        let parser = ReminderCommandParser(defaultTime: Fixture.time(8, 15))
        #expect(try parser.parse("remind me tomorrow to pay rent")
            == .remind(ReminderRequest(task: "pay rent", timing: .once(at: Fixture.time(8, 15), on: .tomorrow))))
    }

    // MARK: Errors

    @Test func anImpossibleTimeIsNamedExactly() {
        #expect(parseError("remind me at 25:99 to call mom") == .unreadableTime("25:99"))
        #expect(parseError("remind me at 25:99 to call mom")?.message
            == "I couldn't read the time '25:99'. Use a 24-hour time like 18:30, or 6:30pm.")
    }

    @Test(arguments: [
        ("remind me at 13pm to x", ReminderCommandError.unreadableTime("13pm")),
        ("remind me at 0 am to x", .unreadableTime("0 am")),
        ("remind me at 24:00 to x", .unreadableTime("24:00")),
        ("remind me at 9:7 to x", .unreadableTime("9:7")),
        ("remind me to call mom at 25:99", .unreadableTime("25:99")),
        ("remind me tomorrow at 25 to x", .unreadableTime("25")),
        ("remind me in 10 parsecs to x", .unreadableDuration("10 parsecs")),
        ("remind me in 10xyz to x", .unreadableDuration("10xyz")),
        ("remind me in 0 minutes to x", .unreadableDuration("0 minutes")),
        ("remind me in soon to x", .unreadableDuration("soon")),
        ("remind me on 2026-02-30 to x", .unreadableDate("2026-02-30")),
        ("remind me on 31 april to x", .unreadableDate("31 april")),
        ("remind me on fridya to x", .unreadableDate("fridya")),
        ("remind me tomorrow morning to x", .unreadableTiming("tomorrow morning")),
        ("remind me in 10 minutes at 18:00 to x", .unreadableTiming("in 10 minutes at 18:00")),
        ("remind me every day tomorrow to x", .unreadableTiming("every day tomorrow")),
        ("remind me every 3 days to x", .unsupportedRepeat("every 3 days")),
        ("remind me every other day to x", .unsupportedRepeat("every other day")),
        ("remind me every 30 seconds to x", .unsupportedRepeat("every 30 seconds")),
        ("remind me every week to x", .unsupportedRepeat("every week")),
        ("remind me in 10 minutes", .missingTask),
        ("remind me in 10 minutes to", .missingTask),
        ("remind me to in 10 minutes", .missingTask),
        ("remind me to stretch", .missingTiming),
        ("remind me", .missingTiming),
        ("remind me about the meeting", .missingTiming),
        ("remind me today to x", .missingTimeOfDay("today")),
        ("remind me in 9999999999 minutes to x", .tooFarAhead),
    ])
    func badInputSaysWhatWasNotUnderstood(message: String, error: ReminderCommandError) {
        #expect(parseError(message) == error)
    }

    @Test func errorMessagesSayWhatWasNotUnderstoodAndHowToSayIt() {
        #expect(parseError("remind me in 10 minutes")?.message
            == "What should I remind you of? Put it after 'to', e.g. 'remind me in 10 minutes to stretch'.")
        #expect(parseError("remind me to stretch")?.message
            == "When should I remind you? Say e.g. 'remind me in 10 minutes to stretch' or 'remind me to stretch at 18:30'.")
        #expect(parseError("remind me on 2026-02-30 to x")?.message
            == "I couldn't read the date '2026-02-30'. Say e.g. 'on friday', 'on 2026-12-24' or 'on 24 December'.")
        #expect(parseError("remind me in 10 parsecs to x")?.message
            == "I couldn't read the duration '10 parsecs'. Say e.g. 'in 10 minutes', 'in 2h' or 'in 1 hour and 30 minutes'.")
        #expect(parseError("remind me every 3 days to x")?.message
            == "I can't repeat 'every 3 days'. I can repeat every N minutes or hours, every day, or on weekdays ('every monday', 'every weekday').")
        #expect(parseError("remind me today to x")?.message == "At what time today? Say e.g. 'today at 18:30'.")
    }

    @Test func theErrorEchoesTheTimeAsWritten() {
        #expect(parseError("REMIND ME AT 6PX TO X") == .unreadableTime("6PX"))
    }

    @Test func aTooLongTaskIsRefused() {
        let task = String(repeating: "a", count: 1_001)
        #expect(parseError("remind me in 10 minutes to \(task)") == .taskTooLong(limit: 1_000))
        #expect((try? parser.parse("remind me in 10 minutes to \(task.dropLast())")) != nil)
    }

    @Test func aReminderTooFarAheadIsRefused() throws {
        let request = try Fixture.request("remind me in 600 weeks to x")
        let error = Fixture.error { () throws(ReminderCommandError) in try request.reminder(now: Fixture.sunday, timeZone: Fixture.utc) }
        #expect(error == .tooFarAhead)
    }
}

/// Hostile or absurd input gets an error or a reply, never a crash or a stall.
@Suite("ReminderCommandParser on hostile input")
struct ReminderCommandParserHostileInputTests {
    @Test func aLongRunOfDurationTermsIsTooFarAheadInsteadOfOverflowing() {
        let terms = Array(repeating: "999999999.999 hours", count: 300).joined(separator: " and ")
        let error = Fixture.error { () throws(ReminderCommandError) in try Fixture.parser.parse("remind me in \(terms) to x") }
        #expect(error == .tooFarAhead)
        let compact = String(repeating: "999999999.999h", count: 280)
        let compactError = Fixture.error { () throws(ReminderCommandError) in try Fixture.parser.parse("remind me in \(compact) to x") }
        #expect(compactError == .tooFarAhead)
    }

    @Test func aMessageFullOfTimingWordsIsAnsweredWithAnError() {
        let message = "remind me to " + Array(repeating: "at 9 on friday in", count: 500).joined(separator: " ")
        // Every candidate timing fails softly; the last one, a bare "in" at the end, says what it lacked.
        let error = Fixture.error { () throws(ReminderCommandError) in try Fixture.parser.parse(message) }
        #expect(error == .unreadableDuration(""))
    }

    @Test func hugeDelaysAndIntervalsMadeInCodeAreTooFarAhead() {
        let delay = Fixture.error { () throws(ReminderCommandError) in
            try ReminderRequest(task: "x", timing: .after(ReminderDelay(days: .max, seconds: .max))).reminder(now: Fixture.sunday, timeZone: Fixture.utc)
        }
        #expect(delay == .tooFarAhead)
        let interval = Fixture.error { () throws(ReminderCommandError) in
            try ReminderRequest(task: "x", timing: .every(minutes: .max)).reminder(now: Fixture.sunday, timeZone: Fixture.utc)
        }
        #expect(interval == .tooFarAhead)
    }

    @Test func remindersAnswerForInstantsFarOutsideAnyCalendar() throws {
        let daily = Reminder(
            task: "x", schedule: ReminderSchedule(repeating: .daily(at: Fixture.time(9), timeZone: Fixture.lisbon), timeZone: Fixture.lisbon),
            due: .distantPast)
        #expect(daily.rescheduled(afterFiringAt: .distantPast) != nil)
        #expect(daily.rescheduled(afterFiringAt: Date(timeIntervalSince1970: .infinity)) == nil)
        let longest = try Fixture.reminder("remind me every \(ReminderTiming.longestIntervalMinutes) minutes to x", in: Fixture.utc)
        #expect(longest.rescheduled(afterFiringAt: longest.due.addingTimeInterval(1)) != nil)
        let beyondHorizon = ReminderRequest(task: "x", timing: .every(minutes: ReminderTiming.longestIntervalMinutes + 1))
        #expect(throws: ReminderCommandError.tooFarAhead) { try beyondHorizon.reminder(now: Fixture.sunday, timeZone: Fixture.utc) }
    }
}
