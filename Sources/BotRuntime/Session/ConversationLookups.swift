import ChatterBots
import Foundation

/// The messages of conversations the bot does not know yet while their look-up (`GET /conversations/{id}`) waits
/// to be tried again: the rule of `AdmissionQueue`'s discovery, apart from its I/O.
///
/// - A look-up refused for good (`NOT_FOUND`, `FORBIDDEN`: the bot cannot see the conversation; an answer that
///   cannot be read) drops its messages: nothing of them can be handled.
/// - Any other failure (no answer, `INTERNAL`, `RATE_LIMITED`, a token being renewed) holds them, and the look-up
///   is tried again when ``MessageActionRetry`` says (1 s, doubling up to 60 s, or the `Retry-After` if longer).
///   Messages of the conversation that arrive meanwhile join them instead of asking again. Without this they were
///   dropped until the next reconnect's refresh listed the conversation.
/// - At most `limit` messages are held per conversation (its backlog limit); the newest beyond are dropped, and
///   come again with the next sync once the conversation is recorded.
struct ConversationLookups: Sendable {
    /// What a failed look-up leads to.
    enum Outcome: Equatable {
        /// Try it again at this instant (report ``retryDue(_:)`` then).
        case retry(at: Date)
        /// Refused for good, for this reason: its messages are dropped.
        case dropped(String)
    }

    private struct Waiting {
        var messages: [Message] = []
        var failures = 0
        /// Whether a retry is scheduled: messages that arrive meanwhile are held.
        var isScheduled = false

        /// Adds `new` up to `limit` held; returns how many did not fit.
        mutating func add(_ new: [Message], limit: Int) -> Int {
            let room = max(0, limit - messages.count)
            messages += new.prefix(room)
            return max(0, new.count - room)
        }
    }

    /// The most messages held per conversation.
    let limit: Int
    private var waiting: [Conversation.ID: Waiting] = [:]

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Holds `messages` of `conversation` when its look-up waits to be tried again. Returns whether they were
    /// taken (then it is not looked up now), and how many of them were dropped past the limit.
    mutating func hold(_ messages: [Message], of conversation: Conversation.ID) -> (held: Bool, dropped: Int) {
        guard var entry = waiting[conversation], entry.isScheduled else { return (false, 0) }
        let dropped = entry.add(messages, limit: limit)
        waiting[conversation] = entry
        return (true, dropped)
    }

    /// The look-up of `conversation` for `messages` failed with `error` at `now`.
    mutating func failed(
        _ conversation: Conversation.ID, messages: [Message], error: any Error, now: Date
    ) -> (outcome: Outcome, dropped: Int) {
        var entry = waiting[conversation] ?? Waiting()
        entry.failures += 1
        switch MessageActionRetry.after(error, attempts: entry.failures) {
        case .retry(let delay):
            let dropped = entry.add(messages, limit: limit)
            entry.isScheduled = true
            waiting[conversation] = entry
            return (.retry(at: now.adding(delay)), dropped)
        case .refused(let reason):
            waiting[conversation] = nil
            return (.dropped(reason), 0)
        case .done:
            waiting[conversation] = nil
            return (.dropped("nothing to look up"), 0)
        }
    }

    /// The retry of `conversation`'s look-up is due: the messages to admit again, which look it up once more.
    mutating func retryDue(_ conversation: Conversation.ID) -> [Message] {
        guard var entry = waiting[conversation], entry.isScheduled else { return [] }
        let messages = entry.messages
        entry.messages = []
        entry.isScheduled = false
        waiting[conversation] = entry
        return messages
    }

    /// `conversation` became known another way (a refresh, a `conversation.updated`): the messages held for it, to
    /// admit now; its look-up is not tried again.
    mutating func release(_ conversation: Conversation.ID) -> [Message] {
        waiting.removeValue(forKey: conversation)?.messages ?? []
    }

    /// `conversation` was looked up: its failures are forgotten.
    mutating func found(_ conversation: Conversation.ID) {
        waiting[conversation] = nil
    }
}
