// The JSON wrappers of REST list responses.

/// `GET /users?username=`.
public struct UserList: Hashable, Sendable, Codable {
    public var users: [User]
    public init(users: [User]) { self.users = users }
}

/// `GET /friends`.
public struct FriendList: Hashable, Sendable, Codable {
    public var friends: [Friend]
    public init(friends: [Friend]) { self.friends = friends }
}

/// `GET /friend-requests`: requests to the caller (`incoming`) and from the caller (`outgoing`).
public struct FriendRequestList: Hashable, Sendable, Codable {
    public var incoming: [FriendRequest]
    public var outgoing: [FriendRequest]

    public init(incoming: [FriendRequest], outgoing: [FriendRequest]) {
        self.incoming = incoming
        self.outgoing = outgoing
    }
}

/// `GET /conversations?updatedSince=`: at most 100, oldest `updatedAt` first.
public struct ConversationList: Hashable, Sendable, Codable {
    public var conversations: [Conversation]
    public init(conversations: [Conversation]) { self.conversations = conversations }
}

/// `GET /conversations/{id}/messages`: ascending after `afterSeq`, descending before `beforeSeq`.
public struct MessagePage: Hashable, Sendable, Codable {
    public var messages: [Message]
    /// True when more messages follow in the same direction.
    public var hasMore: Bool

    public init(messages: [Message], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// `POST /media`: the id to put in a message's `mediaId`, and where the file is served.
public struct MediaUpload: Hashable, Sendable, Codable {
    public var mediaId: Media.ID
    public var url: String

    public init(mediaId: Media.ID, url: String) {
        self.mediaId = mediaId
        self.url = url
    }
}

/// A downloaded media file (`GET /media/{mediaId}`): the raw bytes and their `Content-Type`. The REST client builds
/// it from the response itself (the body is the file, not JSON); its Codable form, `{ data (base64), contentType }`,
/// is for storing or logging one.
public struct MediaFile: Hashable, Sendable, Codable {
    public var data: Data
    public var contentType: String

    public init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}

/// The response of the endpoints that answer 204 No Content; decodes from any body.
public struct NoContent: Hashable, Sendable, Codable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {}
}
