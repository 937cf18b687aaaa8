import ChatterBots

/// What a test user has seen of its conversations, and the rule that turns each event on its socket into what a
/// test waits for: a new message once however often it is delivered, a change to a message together with the
/// version the user saw before it (a repeated delivery of the same version is no change), typing, watermarks, the
/// errors the service answered a frame without an `id` with, and the `pong`s that mark how far the socket was read.
struct UserView {
    /// One change to a message as the user saw it.
    struct Change: Sendable {
        /// The version the user saw last: nil when the user never saw the message before this change.
        var previous: Message?
        /// The message now.
        var current: Message

        /// Whether the change is an edit of the body (a later `editedAt`).
        var isEdit: Bool { current.deletedAt == nil && current.editedAt != nil && current.editedAt != previous?.editedAt }
        /// Whether the change deleted the message for everyone.
        var isDeletion: Bool { current.deletedAt != nil && previous?.deletedAt == nil }

        /// Whether the change added or took back a reaction of `user`'s.
        func reactionsChanged(by user: User.ID) -> Bool {
            Self.emojis(of: user, on: previous) != Self.emojis(of: user, on: current)
        }

        /// The emoji `user` reacts to `message` with.
        static func emojis(of user: User.ID, on message: Message?) -> Set<String> {
            Set(message?.reactions.filter { $0.userIds.contains(user) }.map(\.emoji) ?? [])
        }
    }

    /// What one socket event means to a test.
    enum Observation: Sendable {
        case message(Message)
        case change(Change)
        case typing(TypingIndicator)
        case receipt(ReceiptUpdate)
        case refusal(ChatterErrorBody)
        /// The `pong` of a `ping` the user sent with its own `id`: every event before it has been observed.
        case pong(id: String)
    }

    /// The latest version of every message the user saw (arrived on its socket, or returned by its own calls).
    private var messages: [Message.ID: Message] = [:]

    /// What `frame` adds, or nil when it adds nothing (a repeated delivery, an event tests do not wait for).
    mutating func observe(_ frame: ServerFrame) -> Observation? {
        switch frame.event {
        case .messageNew(let message):
            guard messages[message.id] == nil else { return nil }
            messages[message.id] = message
            return .message(message)
        case .messageUpdated(let message):
            let previous = messages[message.id]
            guard previous != message else { return nil }
            messages[message.id] = message
            return .change(Change(previous: previous, current: message))
        case .typing(let indicator):
            return .typing(indicator)
        case .receiptUpdated(let update):
            return .receipt(update)
        case .error(let body) where frame.replyTo == nil:
            return .refusal(body)
        case .pong:
            return frame.replyTo.map { .pong(id: $0) }
        default:
            return nil
        }
    }

    /// Records a message the user sent, as the service returned it, so that the first change to it is compared
    /// with it. A message seen already keeps the version the socket gave: events arrive in the service's order,
    /// responses to calls need not.
    mutating func know(_ message: Message) {
        if messages[message.id] == nil { messages[message.id] = message }
    }
}
