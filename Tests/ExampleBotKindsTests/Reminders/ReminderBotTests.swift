import BotRuntime
import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

/// The reminder bot in conversation: each phrase becomes one scheduled job at the right instant with an exact
/// confirmation, list and cancel agree, time zones per person, reminders fire on time or late with a note,
/// repeating ones are rescheduled, and in groups it answers only what is meant for it.
@Suite("ReminderBot")
struct ReminderBotTests {
    /// Sunday 30 November 2025, 14:30 UTC: 14:30 in Lisbon, 09:30 in New York.
    static let sunday = Chat.instant("2025-11-30T14:30:00Z")

    static let bot = ReminderBot(options: ReminderBotOptions(defaultTimeZone: Chat.zone("Europe/Lisbon")))

    func context(at now: Date = sunday) -> RecordingBotContext {
        Chat.context(name: "reminder", now: now)
    }

    func payload(of job: ScheduledJob) throws -> ReminderJobPayload { try job.payload(as: ReminderJobPayload.self) }

    // MARK: Setting reminders

    struct Phrase: Sendable, CustomTestStringConvertible {
        let message: String
        let due: String
        let rule: RepeatRule?
        let confirmation: String
        var testDescription: String { message }
    }

    static let phrases: [Phrase] = [
        Phrase(
            message: "remind me in 10 minutes to stretch", due: "2025-11-30T14:40:00Z", rule: nil,
            confirmation: "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today."),
        Phrase(
            message: "remind me at 18:30 to call mom", due: "2025-11-30T18:30:00Z", rule: nil,
            confirmation: "Okay, I'll remind you to call mom at 18:30 (Europe/Lisbon) today."),
        Phrase(
            message: "remind me tomorrow at 9 to pay rent", due: "2025-12-01T09:00:00Z", rule: nil,
            confirmation: "Okay, I'll remind you to pay rent tomorrow, Mon 1 Dec at 09:00 (Europe/Lisbon)."),
        Phrase(
            message: "remind me every day at 9:00 to stand up", due: "2025-12-01T09:00:00Z",
            rule: .daily(at: Fixture.time(9), timeZone: Chat.zone("Europe/Lisbon")),
            confirmation: "Okay, I'll remind you to stand up every day at 09:00 (Europe/Lisbon), first on Mon 1 Dec."),
        Phrase(
            message: "remind me every monday at 10:00 to plan the week", due: "2025-12-01T10:00:00Z",
            rule: .weekly(on: [.monday], at: Fixture.time(10), timeZone: Chat.zone("Europe/Lisbon")),
            confirmation: "Okay, I'll remind you to plan the week every Monday at 10:00 (Europe/Lisbon), first on Mon 1 Dec."),
        Phrase(
            message: "remind me every 2 hours to drink water", due: "2025-11-30T16:30:00Z", rule: .every(.seconds(7_200)),
            confirmation: "Okay, I'll remind you to drink water every 2 hours, first at 16:30 (Europe/Lisbon) today."),
    ]

    @Test(arguments: phrases)
    func eachPhraseSchedulesOneJobAtTheInstantItMeansAndConfirmsIt(_ phrase: Phrase) async throws {
        let context = context()
        try await context.say(phrase.message, to: Self.bot)
        #expect(context.sentTexts == [phrase.confirmation])
        let job = try #require(try await context.jobs.scheduled().first)
        #expect(try await context.jobs.scheduled().count == 1)
        #expect(job.name == "reminder")
        #expect(job.dueAt == Chat.instant(phrase.due))
        #expect(job.repeatRule == phrase.rule)
        #expect(try payload(of: job) == ReminderJobPayload(reminderId: 1, conversationId: Chat.aliceChat, userId: Chat.alice.id))
    }

    @Test func timesAreReadInThePersonsOwnTimeZone() async throws {
        let context = context()
        try await context.say("timezone America/New_York", to: Self.bot)
        try await context.say("remind me at 18:30 to call mom", to: Self.bot)
        try await context.say("remind me at 18:30 to call dad", from: Chat.ben, in: Chat.benChat, to: Self.bot)
        #expect(context.sentTexts == [
            "Okay, your time zone is now America/New_York, where it's 09:30.",
            "Okay, I'll remind you to call mom at 18:30 (America/New_York) today.",
            "Okay, I'll remind you to call dad at 18:30 (Europe/Lisbon) today.",
        ])
        #expect(try await context.jobs.scheduled().map(\.dueAt) == ["2025-11-30T18:30:00Z", "2025-11-30T23:30:00Z"].map(Chat.instant))
    }

    @Test func aReminderKeepsTheZoneItWasSetInWhenThePersonMoves() async throws {
        let context = context()
        try await context.say("remind me tomorrow at 9 to pay rent", to: Self.bot)
        try await context.say("time zone Asia/Kolkata", to: Self.bot)
        try await context.say("remind me tomorrow at 9 to call Ann", to: Self.bot)
        try await context.say("list", to: Self.bot)
        #expect(context.sentTexts.last == """
            Your reminders (Asia/Kolkata):
            1. call Ann — tomorrow 09:00
            2. pay rent — tomorrow 09:00 (Europe/Lisbon)
            """)
    }

    @Test func theDefaultTimeZoneComesFromTheOptions() async throws {
        let bot = try ReminderBot(options: botOptions(#"{"defaultTimeZone": "Asia/Kolkata"}"#))
        let context = context()
        try await context.say("remind me at 21:00 to read", to: bot)
        #expect(context.sentTexts == ["Okay, I'll remind you to read at 21:00 (Asia/Kolkata) today."])
        #expect(try await context.jobs.scheduled().first?.dueAt == Chat.instant("2025-11-30T15:30:00Z"))
    }

    // MARK: List and cancel

    @Test func listAndCancelNumberTheSameRemindersTheSameWay() async throws {
        let context = context()
        try await context.say("remind me in 2 hours to water the plants", to: Self.bot)
        try await context.say("remind me in 10 minutes to stretch", to: Self.bot)
        try await context.say("remind me tomorrow at 9 to pay rent", to: Self.bot)
        try await context.say("list reminders", to: Self.bot)
        #expect(context.sentTexts.last == """
            Your reminders (Europe/Lisbon):
            1. stretch — today 14:40
            2. water the plants — today 16:30
            3. pay rent — tomorrow 09:00
            """)
        try await context.say("cancel 2", to: Self.bot)
        try await context.say("list", to: Self.bot)
        #expect(context.sentTexts.suffix(2) == [
            "Okay, I cancelled reminder 2: water the plants.",
            """
            Your reminders (Europe/Lisbon):
            1. stretch — today 14:40
            2. pay rent — tomorrow 09:00
            """,
        ])
        #expect(try await context.jobs.scheduled().map(\.dueAt) == ["2025-11-30T14:40:00Z", "2025-12-01T09:00:00Z"].map(Chat.instant))
    }

    @Test func cancellingANumberBeyondTheListSaysHowManyThereAre() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", to: Self.bot)
        try await context.say("cancel 3", to: Self.bot)
        #expect(context.sentTexts.last == "There's no reminder 3: you have 1 reminder. Say 'list' to see it.")
        #expect(try await context.jobs.scheduled().count == 1)
    }

    @Test func cancelAllCancelsEveryReminderOfThisConversation() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", to: Self.bot)
        try await context.say("remind me every day at 9 to stand up", to: Self.bot)
        try await context.say("remind me in 1 hour to call Ben", in: Chat.group, to: Self.bot)
        try await context.say("cancel all", to: Self.bot)
        #expect(context.sentTexts.last == "Okay, I cancelled all 2 of your reminders.")
        #expect(try await context.jobs.scheduled().map { try payload(of: $0).conversationId } == [Chat.group])
    }

    @Test func eachConversationListsOnlyTheRemindersSetInIt() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", to: Self.bot)
        try await context.say("remind me in 1 hour to book the room", in: Chat.group, to: Self.bot)
        try await context.say("remind me in 2 hours to call Ben", from: Chat.ben, in: Chat.group, to: Self.bot)
        try await context.say("list reminders", in: Chat.group, to: Self.bot)
        #expect(context.sentTexts.last == """
            Your reminders (Europe/Lisbon):
            1. book the room — today 15:30
            """)
    }

    @Test func aPersonCannotKeepMoreThanTheMaximumNumberOfReminders() async throws {
        let bot = ReminderBot(options: ReminderBotOptions(maximumRemindersPerPerson: 2))
        let context = context()
        for minutes in [10, 20, 30] { try await context.say("remind me in \(minutes) minutes to stretch", to: bot) }
        #expect(context.sentTexts.last == "You have 2 reminders, as many as I keep for one person. Cancel some first ('list' shows them).")
        #expect(try await context.jobs.scheduled().count == 2)
    }

    // MARK: Firing

    @Test func aReminderFiresOnTimeInItsConversationMentioningThePerson() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", in: Chat.group, to: Self.bot)
        context.advance(by: .seconds(600))
        let ran = try await context.runDueJobs(of: Self.bot)
        #expect(ran.count == 1)
        #expect(context.sentMessages.last?.conversationId == Chat.group)
        #expect(context.sentTexts.last == "@alice Reminder: stretch")
        #expect(try await context.jobs.scheduled().isEmpty)
        try await context.say("list", in: Chat.group, to: Self.bot)
        #expect(context.sentTexts.last == "You have no reminders. Set one with 'remind me in 10 minutes to stretch'.")
    }

    @Test func aReminderFiredLateBecauseTheBotWasOfflineSaysSo() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", to: Self.bot)
        context.advance(by: .seconds(3_600))
        try await context.runDueJobs(of: Self.bot)
        #expect(context.sentTexts.last == "@alice Reminder: stretch (late: I was offline at 14:40)")
    }

    @Test func theLatenessThresholdComesFromTheOptions() async throws {
        let bot = try ReminderBot(options: botOptions(#"{"defaultTimeZone": "Europe/Lisbon", "lateAfterSeconds": 900}"#))
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", to: bot)
        context.advance(by: .seconds(1_200))
        try await context.runDueJobs(of: bot)
        #expect(context.sentTexts.last == "@alice Reminder: stretch")
    }

    @Test func aRepeatingReminderIsRescheduledAfterItFires() async throws {
        let context = context()
        try await context.say("remind me every day at 9:00 to stand up", to: Self.bot)
        context.advance(to: Chat.instant("2025-12-01T09:00:00Z"))
        try await context.runDueJobs(of: Self.bot)
        #expect(context.sentTexts.last == "@alice Reminder: stand up")
        #expect(try await context.jobs.scheduled().map(\.dueAt) == [Chat.instant("2025-12-02T09:00:00Z")])
        try await context.say("list", to: Self.bot)
        #expect(context.sentTexts.last == "Your reminders (Europe/Lisbon):\n1. stand up — tomorrow 09:00, every day")
    }

    @Test func aRepeatingReminderMissedForDaysFiresOnceLateThenKeepsItsTime() async throws {
        let context = context()
        try await context.say("remind me every day at 9:00 to stand up", to: Self.bot)
        context.advance(to: Chat.instant("2025-12-03T15:00:00Z"))
        let ran = try await context.runDueJobs(of: Self.bot)
        #expect(ran.count == 1)
        #expect(context.sentTexts.last == "@alice Reminder: stand up (late: I was offline on Mon 1 Dec at 09:00)")
        #expect(try await context.jobs.scheduled().map(\.dueAt) == [Chat.instant("2025-12-04T09:00:00Z")])
        try await context.say("list", to: Self.bot)
        #expect(context.sentTexts.last == "Your reminders (Europe/Lisbon):\n1. stand up — tomorrow 09:00, every day")
    }

    @Test func aReminderForSomeoneTheBotCannotSeeIsSentWithoutAMention() async throws {
        let context = context()
        try await context.say("remind me in 1 minute to leave", from: Chat.stranger, in: Chat.group, to: Self.bot)
        context.advance(by: .seconds(60))
        try await context.runDueJobs(of: Self.bot)
        #expect(context.sentTexts.last == "Reminder: leave")
    }

    @Test func aJobWhoseReminderIsGoneIsCancelledAndSendsNothing() async throws {
        let context = context()
        let stale = try await context.jobs.schedule(
            ReminderJobPayload.job, at: Self.sunday, repeating: .every(.seconds(60)),
            payload: ReminderJobPayload(reminderId: 7, conversationId: Chat.aliceChat, userId: Chat.alice.id))
        try await context.runDueJobs(of: Self.bot)
        #expect(context.sentMessages.isEmpty)
        #expect(try await context.jobs.scheduled().contains { $0.id == stale.id } == false)
    }

    @Test func leavingAGroupCancelsTheRemindersSetThere() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", to: Self.bot)
        try await context.say("remind me in 1 hour to book the room", in: Chat.group, to: Self.bot)
        try await Self.bot.onConversationRemoved(Chat.group, context: context)
        #expect(try await context.jobs.scheduled().map { try payload(of: $0).conversationId } == [Chat.aliceChat])
        try await context.say("list", to: Self.bot)
        #expect(context.sentTexts.last == "Your reminders (Europe/Lisbon):\n1. stretch — today 14:40")
    }

    // MARK: What it answers

    @Test func anythingItCannotParseInADirectConversationGetsTheUsage() async throws {
        let context = context()
        try await context.say("what's up?", to: Self.bot)
        #expect(context.sentTexts == [ReminderCommandParser.usage])
        #expect(try await context.jobs.scheduled().isEmpty)
    }

    @Test func aReminderItCannotPlaceSaysWhy() async throws {
        let context = context()
        try await context.say("remind me today at 8:00 to call mom", to: Self.bot)
        try await context.say("remind me at 25:99 to call mom", to: Self.bot)
        try await context.say("timezone Mars/Olympus", to: Self.bot)
        #expect(context.sentTexts == [
            "Today at 08:00 has already passed. Say a time that's still ahead.",
            "I couldn't read the time '25:99'. Use a 24-hour time like 18:30, or 6:30pm.",
            "I don't know the time zone 'Mars/Olympus'. Use an IANA name like Europe/Lisbon or America/New_York.",
        ])
        #expect(try await context.jobs.scheduled().isEmpty)
    }

    @Test func helpExplainsTheCommands() async throws {
        let context = context()
        try await context.say("help", to: Self.bot)
        #expect(context.sentTexts == [ReminderCommandParser.help])
    }

    @Test(arguments: [
        "hello everyone", "cancel the meeting", "what time zone is Ann in?", "list of groceries: milk", "remind everyone to vote",
    ])
    func inAGroupChatterNotMeantForTheBotIsIgnored(text: String) async throws {
        let context = context()
        try await context.say(text, in: Chat.group, to: Self.bot)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func inAGroupRemindMeAndTheBotsCommandsAreAnsweredQuotingTheRequest() async throws {
        let context = context()
        try await context.say("remind me in 10 minutes to stretch", in: Chat.group, to: Self.bot)
        try await context.say("list reminders", in: Chat.group, to: Self.bot)
        try await context.say("cancel 1", in: Chat.group, to: Self.bot)
        #expect(context.sentTexts == [
            "Okay, I'll remind you to stretch at 14:40 (Europe/Lisbon) today.",
            "Your reminders (Europe/Lisbon):\n1. stretch — today 14:40",
            "Okay, I cancelled reminder 1: stretch.",
        ])
        #expect(context.sentMessages.allSatisfy { $0.content.replyToId != nil && $0.conversationId == Chat.group })
    }

    @Test func inAGroupAMessageAddressedToTheBotIsAnsweredEvenWhenItIsNoCommand() async throws {
        let context = context()
        try await context.say("@reminder what can you do?", in: Chat.group, to: Self.bot)
        try await context.say("@Reminder: list", in: Chat.group, to: Self.bot)
        try await context.say("remind me about the meeting", in: Chat.group, to: Self.bot)
        try await context.say("@someone_else list", in: Chat.group, to: Self.bot)
        #expect(context.sentTexts == [
            ReminderCommandParser.usage,
            "You have no reminders. Set one with 'remind me in 10 minutes to stretch'.",
            "When should I remind you? Say e.g. 'remind me in 10 minutes to stretch' or 'remind me to stretch at 18:30'.",
        ])
    }

    @Test func theBotAnswersToItsAccountUsernameAndConfiguredNames() async throws {
        let configuration = BotConfiguration(
            name: "reminder", kind: ReminderBot.kind, credentials: BotCredentials(username: "remindy", password: "x"),
            friendRequests: .everyone, options: try botOptions(#"{"names": ["rem"]}"#))
        let bot = try ReminderBot(configuration: configuration)
        let context = context()
        for text in ["@remindy help me", "@rem help me", "@reminder help me"] {
            try await context.say(text, in: Chat.group, to: bot)
        }
        #expect(context.sentTexts == Array(repeating: ReminderCommandParser.usage, count: 3))
    }

    @Test func theAddressingRuleReadsTheNameAndStripsIt() {
        let addressing = ReminderAddressing(names: ["Reminder", "remindy"])
        #expect(addressing.read("@reminder cancel 2") == (true, "cancel 2"))
        #expect(addressing.read("  @REMINDY, list") == (true, "list"))
        #expect(addressing.read("@reminder") == (true, ""))
        #expect(addressing.read("Remind me in 10 minutes to stretch") == (true, "Remind me in 10 minutes to stretch"))
        #expect(addressing.read("@reminders list") == (false, "@reminders list"))
        #expect(addressing.read("list") == (false, "list"))
    }

    @Test func theBotNeverAnswersItself() async throws {
        let context = context()
        let me = User(id: Chat.botId, username: "reminder", displayName: "Reminder")
        try await context.say("remind me in 10 minutes to stretch", from: me, in: Chat.aliceChat, to: Self.bot)
        #expect(context.sentMessages.isEmpty)
    }

    // MARK: Options

    @Test(arguments: [
        (#"{"defaultTimeZone": "Europe/Lisbo"}"#, "defaultTimeZone", "unknown time zone \"Europe/Lisbo\""),
        (#"{"defaultTime": "9am"}"#, "defaultTime", "\"HH:MM\""),
        (#"{"lateAfterSeconds": "two minutes"}"#, "lateAfterSeconds", "must be a number"),
        (#"{"maximumRemindersPerPerson": 0}"#, "maximumRemindersPerPerson", "1 or more"),
        (#"{"names": ["@remy"]}"#, "names", "without \"@\""),
        (#"{"timezone": "UTC"}"#, "timezone", "is not an option here"),
    ])
    func aMistakeInTheOptionsNamesTheOptionAtFault(json: String, option: String, message: String) throws {
        let error = try #require(try optionsError(json) { (options) throws(BotOptionsError) in try ReminderBot(options: options) })
        #expect(error.kind == "reminders")
        #expect(error.option == option)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test func optionsDefaultToUTCAndNineOClock() throws {
        let options = try ReminderBot(options: botOptions("{}")).options
        #expect(options.defaultTimeZone == TimeZone(identifier: "UTC"))
        #expect(options.defaultTime == (try TimeOfDay(hour: 9, minute: 0)))
        #expect(options.lateAfter == .seconds(120))
        #expect(options.maximumRemindersPerPerson == 50)
        #expect(ReminderBot.kind == "reminders")
    }

    @Test func theDefaultTimeOfDayComesFromTheOptions() async throws {
        let bot = try ReminderBot(options: botOptions(#"{"defaultTimeZone": "UTC", "defaultTime": "07:15"}"#))
        let context = context()
        try await context.say("remind me tomorrow to pay rent", to: bot)
        #expect(try await context.jobs.scheduled().first?.dueAt == Chat.instant("2025-12-01T07:15:00Z"))
    }
}

/// Replies longer than one Chat message are cut at whole lines, saying how many were left out.
@Suite("ReminderBot reply length")
struct ReminderBotReplyLengthTests {
    @Test func aLongListIsCutAtWholeLinesToFitOneMessage() {
        let lines = (1...60).map { "\($0). " + String(repeating: "x", count: 90) }
        let text = ReminderBot.fitting(lines.joined(separator: "\n"))
        #expect(text.count <= MessageTemplate.maximumLength)
        let kept = text.split(separator: "\n").dropLast()
        #expect(kept.map(String.init) == Array(lines.prefix(kept.count)))
        #expect(text.hasSuffix("\n… and \(60 - kept.count) more lines."))
    }

    @Test func aShortReplyIsLeftAlone() {
        #expect(ReminderBot.fitting("Okay.") == "Okay.")
    }
}
