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
    /// Quarantined work an operator asked to run again (out of its order).
    indirect case retry(QuarantineEntry)

    /// What a later piece of work of the same key supersedes while this one is queued (see `BotEvent.supersededKey`).
    var supersededKey: String? {
        if case .event(let event, _) = self { event.supersededKey } else { nil }
    }

    /// The id that follows the event through the logs, the store and the outbox.
    var trace: String {
        switch self {
        case .message(let message): message.id.rawValue
        case .messageUpdated(_, let trace), .event(_, let trace): trace
        case .job(let occurrence): "job:\(occurrence.job.id.rawValue)#\(occurrence.number)"
        case .retry(let entry): entry.trace
        }
    }

    /// The lane the work's unit commits in.
    var lane: HandlerLane {
        switch self {
        case .message(let message), .messageUpdated(let message, _): .conversation(message.conversationId)
        case .job(let occurrence): .job(occurrence.job.id)
        case .event, .retry: .events
        }
    }

    /// What the work is, for log lines.
    var name: String {
        switch self {
        case .message: "onMessage"
        case .messageUpdated: "onMessageUpdated"
        case .job: "onScheduledJob"
        case .event(let event, _): event.handlerName
        case .retry(let entry): entry.handler
        }
    }

    /// What names the work across restarts, for the crash bookkeeping (`InFlightTable`, `QuarantineRules`): the
    /// same message, occurrence or event gets the same key when it comes again after a crash.
    var workKey: String {
        switch self {
        case .message(let message): "message:\(message.id.rawValue)"
        case .messageUpdated(let message, _): "message-updated:\(message.id.rawValue)#\(MessageUpdateFingerprint(message).digest)"
        case .job(let occurrence): "job:\(occurrence.job.id.rawValue)#\(occurrence.number)"
        case .event(let event, _): event.workKey
        case .retry(let entry): Self.retryKey(of: entry.id)
        }
    }

    /// The work key of a retry of the quarantine entry `id`: a handler run retrying the entry is marked in flight
    /// with it, whatever the work retried.
    static func retryKey(of id: Int64) -> String { "retry:\(id)" }

    /// The quarantine entry whose retry `key` names; nil for any other work.
    static func retriedEntry(inKey key: String) -> Int64? {
        guard key.hasPrefix("retry:") else { return nil }
        return Int64(key.dropFirst("retry:".count))
    }

    /// What the work is, for people reading a quarantine list: a message's text (the in-flight table keeps its
    /// first 160 bytes), or its kind.
    var summary: String {
        switch self {
        case .message(let message), .messageUpdated(let message, _):
            if let body = message.body { return body }
            return "[\(message.kind.rawValue)]"
        case .job(let occurrence): return "job \(occurrence.job.name) #\(occurrence.number)"
        case .event(let event, _): return event.handlerName
        case .retry(let entry): return entry.summary
        }
    }
}

extension BotEvent {
    /// See `HandlerWork.workKey`.
    var workKey: String {
        switch self {
        case .start: "onStart"
        case .ready: "onReady"
        case .friendRequest(let request): "friend-request:\(request.id.rawValue)"
        case .friendAdded(let friend, _): "friend-added:\(friend.user.id.rawValue)"
        case .friendRemoved(let user, _): "friend-removed:\(user.rawValue)"
        case .presenceSnapshot: "presence-snapshot"
        case .presenceChanged(let presence): "presence:\(presence.userId.rawValue):\(presence.isOnline)"
        case .conversationCreated(let conversation): "conversation-created:\(conversation.id.rawValue)"
        case .conversationUpdated(let conversation): "conversation-updated:\(conversation.id.rawValue)@\(conversation.updatedAt.iso8601)"
        case .conversationRemoved(let id): "conversation-removed:\(id.rawValue)"
        case .friendRequestCancelled(let id): "friend-request-cancelled:\(id.rawValue)"
        case .userUpdated(let user), .userUpdatedWhileAway(let user): "user-updated:\(user.id.rawValue)"
        case .readStateChanged(let receipt): "read-state:\(receipt.conversationId.rawValue):\(receipt.userId.rawValue):\(receipt.lastReadSeq)"
        case .typing(let typing): "typing:\(typing.conversationId.rawValue):\(typing.userId.rawValue):\(typing.isTyping)"
        }
    }
}

extension BotEvent {
    /// The state a best-effort event reports (a person typing in a conversation, a user's presence, a member's
    /// watermarks), of which a lane queues two at most: the seed lets typing and presence drop, and keeps the latest
    /// watermarks in the service, so the bot's handler gets the first change and the latest state, not every step
    /// between. Nil for events that must each reach the bot.
    var supersededKey: String? {
        switch self {
        case .typing(let typing): "typing:\(typing.conversationId.rawValue):\(typing.userId.rawValue)"
        case .presenceChanged(let presence): "presence:\(presence.userId.rawValue)"
        case .readStateChanged(let receipt): "read-state:\(receipt.conversationId.rawValue):\(receipt.userId.rawValue)"
        default: nil
        }
    }
}

/// The handlers that are not about one message or job, run in the session's events lane, in arrival order.
package enum BotEvent: Sendable, Hashable, Codable {
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
    /// A friend changed their profile (`user.updated`).
    case userUpdated(User)
    /// A friend's profile changed while the bot was away: found, and recorded in the friends list, by the REST
    /// refresh. A case of its own, not a flag of `userUpdated`: quarantined events are stored as JSON, and rows
    /// written before must still read.
    case userUpdatedWhileAway(User)
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
        case .userUpdated, .userUpdatedWhileAway: "onUserUpdated"
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
        case .job, .event, .retry: nil
        }
    }
}
