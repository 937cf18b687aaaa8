import ChatterBots

/// One person's reminders as the reminder bot stores them in its state (`reminders` in the person's scope):
/// each with the conversation it was set in and the scheduled job that fires it.
struct ReminderBook: Codable, Sendable, Hashable {
    struct Entry: Codable, Sendable, Hashable {
        /// Unique within the book, never reused; carried by the job's payload.
        var id: Int
        var jobId: ScheduledJob.ID
        var conversationId: Conversation.ID
        var reminder: Reminder
    }

    var entries: [Entry] = []
    var lastId = 0

    static let key = StateKey<ReminderBook>("reminders")

    /// The reminders set in `conversationId`, in the order "list" numbers them and "cancel N" counts them:
    /// soonest first, ties in the order they were set.
    func entries(in conversationId: Conversation.ID) -> [Entry] {
        entries.filter { $0.conversationId == conversationId }.sorted { ($0.reminder.due, $0.id) < ($1.reminder.due, $1.id) }
    }

    mutating func add(_ reminder: Reminder, jobId: ScheduledJob.ID, conversationId: Conversation.ID, id: Int) {
        entries.append(Entry(id: id, jobId: jobId, conversationId: conversationId, reminder: reminder))
        lastId = max(lastId, id)
    }

    mutating func remove(id: Int) {
        entries.removeAll { $0.id == id }
    }
}

/// What a reminder's scheduled job carries: which reminder of whose book, and where to send it.
struct ReminderJobPayload: Codable, Sendable, Hashable {
    var reminderId: Int
    var conversationId: Conversation.ID
    var userId: User.ID

    /// The bot's reminder jobs, each carrying one of these.
    static let job = JobKind<ReminderJobPayload>("reminder")
}
