import ChatterBots

/// The `reminders` bot kind: sets, lists and cancels reminders said in plain English and sends each one on
/// time, in the conversation it was set in. Configured by `ReminderBotOptions`.
///
/// It understands everything `ReminderCommandParser` does: "remind me in 10 minutes to stretch", "remind me at
/// 18:30 to call mom", "remind me tomorrow at 9 to pay rent", "remind me every day at 9:00 to stand up",
/// "remind me every monday at 10:00 to …", "list reminders", "cancel 2", "cancel all",
/// "timezone Europe/Lisbon", "help". It confirms with the exact local time it understood; a mistake gets a
/// reply saying what was not understood; anything else gets the short usage text.
///
/// In a group the bot answers only messages meant for it, since people there talk to each other. A message
/// addressed to it, starting with `@name` (its name in `bots.json`, its account's username, or one of the
/// options' `names`) or with "remind me", is answered as in a direct conversation, usage text included. Any
/// other message is acted on only when it is exactly one of its commands ("list reminders", "cancel 2",
/// "cancel all", "timezone Europe/Lisbon", "help"); everything else, near-commands such as "cancel the
/// meeting" included, is ignored silently. Replies in a group quote the message they answer.
///
/// Storage and scheduling: each person's reminders are kept in the bot's state (`ReminderBook`), each with one
/// scheduled job (`context.jobs`, kind `ReminderJobPayload.job`, repeating by the reminder's `RepeatRule`, payload: reminder id,
/// conversation, person), so reminders survive restarts and one missed while the bot was down fires once,
/// late, saying so. "list" and "cancel N" number the reminders set in the current conversation the same way,
/// soonest first. Times are read in each person's zone ("timezone …"), by default `defaultTimeZone`.
public struct ReminderBot: ConfigurableBot {
    public static let kind = "reminders"

    public let options: ReminderBotOptions
    private let parser: ReminderCommandParser
    private let extraNames: [String]
    private let profiles = UserProfileCache()
    private let conversationKinds = ConversationKindCache()

    /// The zone a person said with "timezone …" (an IANA identifier).
    static let timeZoneKey = StateKey<String>("reminders.timeZone")

    public init(options: ReminderBotOptions) {
        self.init(options: options, accountUsername: nil)
    }

    /// The bot with `options` decoded from `bots.json`.
    public init(options: BotOptions) throws(BotOptionsError) {
        self.init(options: try OptionsDecoding.decode(ReminderBotOptions.self, from: options, kind: Self.kind))
    }

    /// The bot of `configuration`; it also answers to `@` its account's username in groups.
    public init(configuration: BotConfiguration) throws(BotOptionsError) {
        self.init(
            options: try OptionsDecoding.decode(ReminderBotOptions.self, from: configuration.options, kind: Self.kind),
            accountUsername: configuration.credentials.username)
    }

    private init(options: ReminderBotOptions, accountUsername: String?) {
        self.options = options
        parser = ReminderCommandParser(defaultTime: options.defaultTime)
        extraNames = options.names + (accountUsername.map { [$0] } ?? [])
    }

    // MARK: Messages

    public func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        guard message.senderId != context.bot.userId, !message.isDeleted,
              !message.text.allSatisfy(\.isWhitespace) else { return }
        let addressing = ReminderAddressing(names: [context.bot.name] + extraNames)
        let (isAddressed, text) = addressing.read(message.text)
        let isGroup = try await conversationKinds.isGroup(message.conversationId, context: context)
        let answersEverything = !isGroup || isAddressed
        let reply = { (text: String) in
            _ = try await context.reply(to: message, ReminderBot.fitting(text), quoting: isGroup)
        }
        let command: ReminderCommand
        do {
            command = try parser.parse(text)
        } catch {
            if answersEverything { try await reply(error.message) }
            return
        }
        do {
            switch command {
            case .unrecognized(let usage):
                if answersEverything { try await reply(usage) }
            case .help:
                try await reply(ReminderCommandParser.help)
            case .remind(let request):
                try await reply(try await remind(request, for: message, context: context))
            case .list:
                try await reply(try await list(for: message, context: context))
            case .cancel(let number):
                try await reply(try await cancel(number: number, for: message, context: context))
            case .cancelAll:
                try await reply(try await cancelAll(for: message, context: context))
            case .setTimeZone(let zone):
                try await context.state.set(zone.identifier, for: Self.timeZoneKey, in: .user(message.senderId))
                try await reply(ReminderConfirmation.timeZoneSet(zone, now: context.now).text)
            }
        } catch let error as ReminderCommandError {
            try await reply(error.message)
        }
    }

    /// The zone `userId`'s times are read in.
    func timeZone(of userId: User.ID, context: any BotContext) async throws -> TimeZone {
        guard let identifier = try? await context.state.value(Self.timeZoneKey, in: .user(userId)),
              let zone = TimeZone(identifier: identifier) else { return options.defaultTimeZone }
        return zone
    }

    private func remind(_ request: ReminderRequest, for message: IncomingMessage, context: any BotContext) async throws -> String {
        let person = StateScope.user(message.senderId)
        let now = context.now
        let reminder = try request.reminder(now: now, timeZone: try await timeZone(of: message.senderId, context: context))
        var book = try await context.state.value(ReminderBook.key, in: person) ?? ReminderBook()
        guard book.entries.count < options.maximumRemindersPerPerson else {
            return "You have \(book.entries.count) reminders, as many as I keep for one person. "
                + "Cancel some first ('list' shows them)."
        }
        let id = book.lastId + 1
        let payload = ReminderJobPayload(reminderId: id, conversationId: message.conversationId, userId: message.senderId)
        let job = try await context.jobs.schedule(
            ReminderJobPayload.job, at: reminder.due, repeating: reminder.schedule.repeatRule, payload: payload)
        book.add(reminder, jobId: job.id, conversationId: message.conversationId, id: id)
        try await context.state.set(book, for: ReminderBook.key, in: person)
        context.logger.info("reminder set", ["user": message.senderId.rawValue, "reminder": "\(id)", "due": Timestamp(reminder.due).iso8601])
        return ReminderConfirmation(reminder, now: now).text
    }

    private func list(for message: IncomingMessage, context: any BotContext) async throws -> String {
        let book = try await context.state.value(ReminderBook.key, in: .user(message.senderId)) ?? ReminderBook()
        let zone = try await timeZone(of: message.senderId, context: context)
        return ReminderList(book.entries(in: message.conversationId).map(\.reminder), timeZone: zone).text(now: context.now)
    }

    private func cancel(number: Int, for message: IncomingMessage, context: any BotContext) async throws -> String {
        let person = StateScope.user(message.senderId)
        var book = try await context.state.value(ReminderBook.key, in: person) ?? ReminderBook()
        let shown = book.entries(in: message.conversationId)
        let zone = try await timeZone(of: message.senderId, context: context)
        let entry = shown[try ReminderList(shown.map(\.reminder), timeZone: zone).index(ofNumber: number)]
        try await context.jobs.cancel(entry.jobId)
        book.remove(id: entry.id)
        try await context.state.set(book, for: ReminderBook.key, in: person)
        return ReminderConfirmation.cancelled(entry.reminder, number: number).text
    }

    private func cancelAll(for message: IncomingMessage, context: any BotContext) async throws -> String {
        let person = StateScope.user(message.senderId)
        var book = try await context.state.value(ReminderBook.key, in: person) ?? ReminderBook()
        let shown = book.entries(in: message.conversationId)
        for entry in shown {
            try await context.jobs.cancel(entry.jobId)
            book.remove(id: entry.id)
        }
        try await context.state.set(book, for: ReminderBook.key, in: person)
        return ReminderConfirmation.cancelledAll(count: shown.count).text
    }

    // MARK: Firing

    public func onScheduledJob(_ job: ChatterBots.ScheduledJob, context: any BotContext) async throws {
        let payload: ReminderJobPayload
        do {
            guard let reminder = try job.payload(of: ReminderJobPayload.job) else { return }
            payload = reminder
        } catch {
            context.logger.error("a reminder job has an unreadable payload; cancelling it", ["job": job.id.rawValue, "error": "\(error)"])
            try await context.jobs.cancel(job.id)
            return
        }
        let person = StateScope.user(payload.userId)
        var book = try await context.state.value(ReminderBook.key, in: person) ?? ReminderBook()
        guard let entry = book.entries.first(where: { $0.id == payload.reminderId }) else {
            // Cancelled while the job was already running: a repeating job must not come back.
            context.logger.warning("a reminder job has no reminder any more; cancelling it", ["job": job.id.rawValue])
            try await context.jobs.cancel(job.id)
            return
        }
        let now = context.now
        let occurrence = Reminder(task: entry.reminder.task, schedule: entry.reminder.schedule, due: job.dueAt)
        let alert = ReminderAlert(occurrence, firedAt: now, grace: options.lateAfter)
        let mention = try await profiles.user(payload.userId, context: context).map { "@\($0.username) " } ?? ""
        try await context.send(ReminderBot.fitting(mention + alert.text), to: entry.conversationId)
        book.remove(id: entry.id)
        if let next = occurrence.rescheduled(afterFiringAt: now) {
            book.entries.append(ReminderBook.Entry(id: entry.id, jobId: entry.jobId, conversationId: entry.conversationId, reminder: next))
        }
        try await context.state.set(book, for: ReminderBook.key, in: person)
        context.logger.info("reminder sent", ["user": payload.userId.rawValue, "reminder": "\(entry.id)", "late": "\(alert.isLate)"])
    }

    // MARK: Conversations and friends

    public func onConversationCreated(_ conversation: Conversation, context: any BotContext) async throws {
        try await conversationKinds.remember(conversation, context: context)
    }

    /// The bot left a group: its reminders there could never be delivered, so they are cancelled.
    public func onConversationRemoved(_ conversationId: Conversation.ID, context: any BotContext) async throws {
        for job in try await context.jobs.scheduled(ReminderJobPayload.job) {
            guard let payload = try? job.payload(of: ReminderJobPayload.job), payload.conversationId == conversationId else { continue }
            try await context.jobs.cancel(job.id)
            let person = StateScope.user(payload.userId)
            if var book = try await context.state.value(ReminderBook.key, in: person) {
                book.remove(id: payload.reminderId)
                try await context.state.set(book, for: ReminderBook.key, in: person)
            }
        }
    }

    public func onFriendAdded(_ friend: Friend, context: any BotContext) async throws {
        try await profiles.remember(friend.user, context: context)
    }

    /// `text` cut to what one Chatter message carries, whole lines first, saying how much was left out.
    static func fitting(_ text: String) -> String {
        let limit = MessageTemplate.maximumLength
        guard text.count > limit else { return text }
        var kept: [Substring] = []
        var length = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines {
            guard length + line.count + 1 <= limit - 40 else { break }
            kept.append(line)
            length += line.count + 1
        }
        if kept.isEmpty { return String(text.prefix(limit - 1)) + "…" }
        return kept.joined(separator: "\n") + "\n… and \(lines.count - kept.count) more lines."
    }
}
