import Foundation
import Testing

@testable import ChatterBots

/// The example: a reminder bot for its owner, built on the router with commands, a pattern, middleware and
/// a dialog in included routers, and a scheduled-job handler of its own.
struct ReminderRouterBot: Bot {
    struct Reminder: Codable, Sendable { var conversationId: Conversation.ID? = nil; var time = ""; var task = "" }
    let router: MessageRouter

    init(owner: String) {
        let daily = Dialog("daily", initialValues: Reminder())
            .step("time", ask: "What time? (like 18:30)") { answer, reminder in
                guard let time = TimeOfDay(commandArgument: answer.text) else { return .retry("Please write a time like 18:30.") }
                reminder.time = time.description
                return .next
            }
            .step("task", ask: "What should I remind you of?") { answer, reminder in
                reminder.task = answer.text
                return .next
            }
            .step("confirm", ask: { "Every day at \($0.time): “\($0.task)”. OK?" }) { answer, _ in
                Bool(commandArgument: answer.text).map { $0 ? .finish : .goTo("time") } ?? .retry("Yes or no?")
            }
            .onFinish { message, reminder in
                let time = try #require(TimeOfDay(commandArgument: reminder.time))
                var reminder = reminder
                reminder.conversationId = message.conversationId
                let rule = RepeatRule.daily(at: time, timeZone: .gmt)
                let first = try #require(rule.nextOccurrence(following: message.context.now, after: message.context.now))
                try await message.context.jobs.schedule(JobKind<Reminder>("daily"), at: first, repeating: rule, payload: reminder)
                try await message.reply("Done: every day at \(reminder.time).")
            }
        // The reminder commands and their dialog, and the small talk, are routers of their own, included by the
        // bot's router, whose middleware guards them all.
        let reminders = MessageRouter { reminders in
            reminders.dialog(daily)
            reminders.command("remind", usage: "<delay> <task...>", summary: "remind you of <task> after <delay>") { message in
                let delay: Duration = try message.arguments.value("delay")
                let reminder = Reminder(conversationId: message.conversationId, task: try message.arguments.value("task"))
                try await message.context.jobs.schedule(JobKind<Reminder>("once"), after: delay, payload: reminder)
                try await message.reply("OK, I'll remind you.")
            }
            reminders.command("daily", summary: "set up a daily reminder") { try await $0.startDialog(daily) }
            reminders.command("list reminders", prefixed: false, summary: "show your reminders") { message in
                let tasks = try await message.context.jobs.scheduled().map { try $0.payload(as: Reminder.self).task }
                try await message.reply(tasks.isEmpty ? "No reminders." : tasks.joined(separator: "\n"))
            }
        }
        let smallTalk = MessageRouter { smallTalk in
            smallTalk.pattern(/\bthank(s| you)\b/, ignoringCase: true) { message, _ in try await message.reply("You're welcome!") }
        }
        router = MessageRouter { router in
            router.use(LoggingMiddleware())
            router.use(AccessControlMiddleware(allowing: [.username(owner)]))
            router.use(RateLimitMiddleware(messages: 5, per: .seconds(60)))
            router.include(reminders)
            router.include(smallTalk)
            router.fallback { try await $0.reply("Send /help to see what I can do.") }
        }
    }

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        try await router.onMessage(message, context: context)
    }

    func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws {
        let reminder = try job.payload(as: Reminder.self)
        guard let conversationId = reminder.conversationId else { return }
        try await context.send("⏰ \(reminder.task)", to: conversationId)
    }
}

@Suite("Example bot on the router")
struct ExampleRouterBotTests {
    let owner = User(id: "U1", username: "ana", displayName: "Ana")
    let stranger = User(id: "U2", username: "eve", displayName: "Eve")

    private func makeContext() -> RecordingBotContext {
        RecordingBotContext(
            now: Date(timeIntervalSince1970: 1_800_000_000),  // 2027-01-15 08:00 UTC
            friends: [owner, stranger].map { Friend(user: $0, since: Timestamp(millisecondsSince1970: 0)) })
    }

    /// Delivers `text` to a new instance of the bot each time, as after a restart: all it keeps is in the context.
    private func say(_ text: String, from sender: User.ID = "U1", _ context: RecordingBotContext) async throws {
        try await context.deliver(chatMessage(text, from: sender).message, to: ReminderRouterBot(owner: "ana"))
    }

    @Test func theOwnerSetsUpRemindersByCommandAndByDialog() async throws {
        let context = makeContext()
        for text in ["/remind 10m stretch", "/daily", "25:00", "9:15", "drink water", "yes", "list reminders", "thanks!"] {
            try await say(text, context)
            context.advance(by: .seconds(15))  // a person typing, well within the rate limit
        }
        #expect(context.replies == [
            "OK, I'll remind you.",
            "What time? (like 18:30)", "Please write a time like 18:30.", "What should I remind you of?",
            "Every day at 09:15: “drink water”. OK?", "Done: every day at 09:15.",
            "stretch\ndrink water", "You're welcome!",
        ])
        context.advance(by: .seconds(600))
        try await context.runDueJobs(of: ReminderRouterBot(owner: "ana"))
        #expect(context.replies.last == "⏰ stretch")
        context.advance(by: .seconds(7200))  // past 09:15
        try await context.runDueJobs(of: ReminderRouterBot(owner: "ana"))
        #expect(context.replies.last == "⏰ drink water")
    }

    @Test func strangersAreRefusedAndFloodsAreLimited() async throws {
        let context = makeContext()
        try await say("/remind 1m hack", from: stranger.id, context)
        #expect(context.replies == ["Sorry, I only talk with people on my list. Ask my owner to add you."])
        for _ in 0..<7 { try await say("hello?", context) }
        #expect(context.replies.dropFirst() == [
            "Send /help to see what I can do.", "Send /help to see what I can do.", "Send /help to see what I can do.",
            "Send /help to see what I can do.", "Send /help to see what I can do.",
            "You are sending messages faster than I can answer. Please wait 12 s and try again.",
        ])
        #expect(try await context.jobs.scheduled().isEmpty)
    }

    @Test func helpListsTheExampleCommands() async throws {
        let context = makeContext()
        try await say("/help", context)
        #expect(context.replies == [
            """
            Commands:
            /remind <delay> <task...> — remind you of <task> after <delay>
            /daily — set up a daily reminder
            list reminders — show your reminders
            /help [command...] — list the commands, or explain one
            """,
        ])
    }
}
