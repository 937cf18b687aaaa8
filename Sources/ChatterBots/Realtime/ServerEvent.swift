/// Every server-to-client event of the realtime protocol, with its typed `data`.
///
/// A `type` this version does not know decodes as `.unknown` (the protocol says to ignore unknown
/// types), never as an error.
///
/// The cases with large payloads are `indirect`, so that the frequent ones (`message.new`, `message.ack`) are
/// not copied in a value sized for a friend request.
public enum ServerEvent: Hashable, Sendable {
    /// `session.ready`: first frame after connect.
    case sessionReady(SessionReady)
    /// `pong`: reply to `ping`.
    case pong
    /// `message.ack`: reply to `message.send`.
    case messageAck(MessageAck)
    /// `message.new`: a new message in one of the caller's conversations (at least once; dedupe by id).
    case messageNew(Message)
    /// `message.updated`: an edit, a delete for everyone, or a reaction change.
    case messageUpdated(Message)
    /// `receipt.updated`: a member's watermarks moved.
    case receiptUpdated(ReceiptUpdate)
    /// `typing`.
    case typing(TypingIndicator)
    /// `presence`: a friend came online or went offline.
    case presence(Presence)
    /// `presence.snapshot`: all friends, right after `session.ready`.
    case presenceSnapshot([Presence])
    /// `conversation.created`: someone started a conversation with the caller.
    indirect case conversationCreated(Conversation)
    /// `conversation.updated`: title, avatar, members or roles changed.
    indirect case conversationUpdated(Conversation)
    /// `conversation.removed`: the caller was removed from a group.
    case conversationRemoved(conversationId: Conversation.ID)
    /// `friend_request.received`.
    indirect case friendRequestReceived(FriendRequest)
    /// `friend_request.accepted`: sent to both users, each with the other user as `friend`.
    indirect case friendRequestAccepted(FriendRequestAccepted)
    /// `friend_request.cancelled`: the sender withdrew a request to the caller.
    case friendRequestCancelled(requestId: FriendRequest.ID)
    /// `friend.removed`.
    case friendRemoved(userId: User.ID)
    /// `user.updated`: a friend changed their profile.
    case userUpdated(User)
    /// `sync.response`: reply to `sync.request`.
    case syncResponse(SyncResponse)
    /// `error`: a client frame failed (its `replyTo` names the frame).
    case error(ChatterErrorBody)
    /// A type this version does not know, with its raw `data` (`.null` when absent).
    case unknown(type: String, data: JSONValue)

    /// The frame's `type` string.
    public var type: String {
        switch self {
        case .sessionReady: "session.ready"
        case .pong: "pong"
        case .messageAck: "message.ack"
        case .messageNew: "message.new"
        case .messageUpdated: "message.updated"
        case .receiptUpdated: "receipt.updated"
        case .typing: "typing"
        case .presence: "presence"
        case .presenceSnapshot: "presence.snapshot"
        case .conversationCreated: "conversation.created"
        case .conversationUpdated: "conversation.updated"
        case .conversationRemoved: "conversation.removed"
        case .friendRequestReceived: "friend_request.received"
        case .friendRequestAccepted: "friend_request.accepted"
        case .friendRequestCancelled: "friend_request.cancelled"
        case .friendRemoved: "friend.removed"
        case .userUpdated: "user.updated"
        case .syncResponse: "sync.response"
        case .error: "error"
        case .unknown(let type, _): type
        }
    }

    init(type: String, container: KeyedDecodingContainer<FrameCodingKeys>) throws {
        func data<Payload: Decodable>(_: Payload.Type) throws -> Payload {
            try container.decode(Payload.self, forKey: .data)
        }
        switch type {
        case "session.ready": self = .sessionReady(try data(SessionReady.self))
        case "pong": self = .pong
        case "message.ack": self = .messageAck(try data(MessageAck.self))
        case "message.new": self = .messageNew(try data(Message.self))
        case "message.updated": self = .messageUpdated(try data(Message.self))
        case "receipt.updated": self = .receiptUpdated(try data(ReceiptUpdate.self))
        case "typing": self = .typing(try data(TypingIndicator.self))
        case "presence": self = .presence(try data(Presence.self))
        case "presence.snapshot": self = .presenceSnapshot(try data(PresenceSnapshotPayload.self).users)
        case "conversation.created": self = .conversationCreated(try data(Conversation.self))
        case "conversation.updated": self = .conversationUpdated(try data(Conversation.self))
        case "conversation.removed":
            self = .conversationRemoved(conversationId: try data(ConversationIDPayload.self).conversationId)
        case "friend_request.received": self = .friendRequestReceived(try data(FriendRequest.self))
        case "friend_request.accepted": self = .friendRequestAccepted(try data(FriendRequestAccepted.self))
        case "friend_request.cancelled":
            self = .friendRequestCancelled(requestId: try data(RequestIDPayload.self).requestId)
        case "friend.removed": self = .friendRemoved(userId: try data(UserIDPayload.self).userId)
        case "user.updated": self = .userUpdated(try data(User.self))
        case "sync.response": self = .syncResponse(try data(SyncResponse.self))
        case "error": self = .error(try data(ChatterErrorBody.self))
        default: self = .unknown(type: type, data: try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null)
        }
    }

    func encodeData(into container: inout KeyedEncodingContainer<FrameCodingKeys>) throws {
        switch self {
        case .sessionReady(let value): try container.encode(value, forKey: .data)
        case .pong: try container.encode(EmptyPayload(), forKey: .data)
        case .messageAck(let value): try container.encode(value, forKey: .data)
        case .messageNew(let value), .messageUpdated(let value): try container.encode(value, forKey: .data)
        case .receiptUpdated(let value): try container.encode(value, forKey: .data)
        case .typing(let value): try container.encode(value, forKey: .data)
        case .presence(let value): try container.encode(value, forKey: .data)
        case .presenceSnapshot(let users): try container.encode(PresenceSnapshotPayload(users: users), forKey: .data)
        case .conversationCreated(let value), .conversationUpdated(let value): try container.encode(value, forKey: .data)
        case .conversationRemoved(let id): try container.encode(ConversationIDPayload(conversationId: id), forKey: .data)
        case .friendRequestReceived(let value): try container.encode(value, forKey: .data)
        case .friendRequestAccepted(let value): try container.encode(value, forKey: .data)
        case .friendRequestCancelled(let id): try container.encode(RequestIDPayload(requestId: id), forKey: .data)
        case .friendRemoved(let id): try container.encode(UserIDPayload(userId: id), forKey: .data)
        case .userUpdated(let value): try container.encode(value, forKey: .data)
        case .syncResponse(let value): try container.encode(value, forKey: .data)
        case .error(let value): try container.encode(value, forKey: .data)
        case .unknown(_, let data): if data != .null { try container.encode(data, forKey: .data) }
        }
    }
}
