import ChatterBots
import Foundation

/// Who is typing where, as a pure value with time as input: `typing.start` begins (or prolongs) typing, and it
/// ends by `typing.stop` or by itself `timeout` after the last `typing.start`. Only changes are reported, so a
/// client repeating `typing.start` every 3 s produces one `typing {isTyping:true}`.
public struct TypingTracker: Sendable {
    private struct Key: Hashable, Sendable {
        var conversationId: Conversation.ID
        var userId: User.ID
    }

    /// How long typing lasts after the last `typing.start`.
    public let timeout: Duration
    private var expiries: [Key: Date] = [:]

    public init(timeout: Duration = .seconds(5)) {
        self.timeout = timeout
    }

    /// The earliest moment someone's typing runs out; nil when nobody types.
    public var nextDeadline: Date? { expiries.values.min() }

    /// Whether `userId` is typing in `conversationId`.
    public func isTyping(_ userId: User.ID, in conversationId: Conversation.ID) -> Bool {
        expiries[Key(conversationId: conversationId, userId: userId)] != nil
    }

    /// When the typing of `userId` in `conversationId` runs out; nil when they are not typing.
    package func expiry(of userId: User.ID, in conversationId: Conversation.ID) -> Date? {
        expiries[Key(conversationId: conversationId, userId: userId)]
    }

    /// `typing.start` at `now`: returns the indicator to announce when the user was not typing yet.
    public mutating func start(_ userId: User.ID, in conversationId: Conversation.ID, at now: Date) -> TypingIndicator? {
        let key = Key(conversationId: conversationId, userId: userId)
        let wasTyping = expiries[key] != nil
        expiries[key] = now.addingTimeInterval(timeout.timeInterval)
        return wasTyping ? nil : TypingIndicator(conversationId: conversationId, userId: userId, isTyping: true)
    }

    /// `typing.stop`: returns the indicator to announce when the user was typing.
    public mutating func stop(_ userId: User.ID, in conversationId: Conversation.ID) -> TypingIndicator? {
        let key = Key(conversationId: conversationId, userId: userId)
        guard expiries.removeValue(forKey: key) != nil else { return nil }
        return TypingIndicator(conversationId: conversationId, userId: userId, isTyping: false)
    }

    /// The typing that ran out at or before `now`, as `isTyping: false` indicators in deadline order.
    public mutating func expire(at now: Date) -> [TypingIndicator] {
        let due = expiries.filter { $0.value <= now }.sorted {
            ($0.value, $0.key.conversationId, $0.key.userId) < ($1.value, $1.key.conversationId, $1.key.userId)
        }
        for (key, _) in due { expiries[key] = nil }
        return due.map { TypingIndicator(conversationId: $0.key.conversationId, userId: $0.key.userId, isTyping: false) }
    }
}
