import ChatterBots

/// One call of a bot handler, waiting in its lane of the `HandlerDispatcher`.
enum HandlerWork: Sendable {
    /// `onMessage`, for a message the store handed out (next in its conversation, not seen before).
    case message(Message)
    /// `onMessageUpdated`.
    case messageUpdated(Message, trace: String)
    /// `onScheduledJob`, for a claimed occurrence.
    indirect case job(JobOccurrence)
    /// Any other handler.
    case event(BotEvent, trace: String)

    /// The id that follows the event through the logs, the store and the outbox.
    var trace: String {
        switch self {
        case .message(let message): message.id.rawValue
        case .messageUpdated(_, let trace), .event(_, let trace): trace
        case .job(let occurrence): "job:\(occurrence.job.id.rawValue)#\(occurrence.number)"
        }
    }

    /// What the work is, for log lines.
    var name: String {
        switch self {
        case .message: "onMessage"
        case .messageUpdated: "onMessageUpdated"
        case .job: "onScheduledJob"
        case .event(let event, _): event.handlerName
        }
    }
}

/// The handlers that are not about one message or job, run in the session's events lane, in arrival order.
enum BotEvent: Sendable {
    case start
    case ready(SessionReady)
    indirect case friendRequest(FriendRequest)
    /// A friendship began; `isRecorded` when the friends list already has it (found by the REST refresh).
    case friendAdded(Friend, isRecorded: Bool)
    /// A friendship ended; `isRecorded` when the friends list already dropped it.
    case friendRemoved(User.ID, isRecorded: Bool)
    case presenceSnapshot([Presence])
    case presenceChanged(Presence)
    indirect case conversationCreated(Conversation)
    indirect case conversationUpdated(Conversation)
    case conversationRemoved(Conversation.ID)
    case friendRequestCancelled(FriendRequest.ID)
    case userUpdated(User)
    /// Another member's watermarks moved.
    case readStateChanged(ReceiptUpdate)
    /// Another member started or stopped typing.
    case typing(TypingIndicator)

    var handlerName: String {
        switch self {
        case .start: "onStart"
        case .ready: "onReady"
        case .friendRequest: "onFriendRequest"
        case .friendAdded: "onFriendAdded"
        case .friendRemoved: "onFriendRemoved"
        case .presenceSnapshot: "onPresenceSnapshot"
        case .presenceChanged: "onPresenceChanged"
        case .conversationCreated: "onConversationCreated"
        case .conversationUpdated: "onConversationUpdated"
        case .conversationRemoved: "onConversationRemoved"
        case .friendRequestCancelled: "onFriendRequestCancelled"
        case .userUpdated: "onUserUpdated"
        case .readStateChanged: "onReadStateChanged"
        case .typing: "onTyping"
        }
    }
}

/// Where work runs in order: one lane per conversation (messages in `seq` order), one per scheduled job
/// (occurrences in order), and one for every other event. Lanes run concurrently up to a bound.
enum HandlerLane: Hashable, Sendable, CustomStringConvertible {
    case conversation(Conversation.ID)
    case job(ScheduledJob.ID)
    case events

    var description: String {
        switch self {
        case .conversation(let id): "conversation \(id)"
        case .job(let id): "job \(id)"
        case .events: "events"
        }
    }
}

/// Short random ids for events that carry none of their own.
enum TraceID {
    static func make() -> String {
        let hex = Array("0123456789abcdef".utf8)
        var value = UInt64.random(in: .min ... .max)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12)
        for _ in 0..<12 {
            bytes.append(hex[Int(value & 0xf)])
            value >>= 4
        }
        return "ev-" + String(decoding: bytes, as: UTF8.self)
    }
}

extension HandlerWork {
    /// The seq a conversation lane orders the work by: the message's, or the updated message's.
    var seq: Int? {
        switch self {
        case .message(let message): message.seq
        case .messageUpdated(let message, _): message.seq
        case .job, .event: nil
        }
    }
}
