// The JSON wrappers of REST list responses.

/// `GET /users?username=`.
public struct UserList: Hashable, Sendable, Codable {
    /// The users found: zero or one for an exact username.
    public var users: [User]
    /// A search result.
    public init(users: [User]) { self.users = users }
}

/// `GET /friends`.
public struct FriendList: Hashable, Sendable, Codable {
    /// The caller's friends.
    public var friends: [Friend]
    /// A friend list.
    public init(friends: [Friend]) { self.friends = friends }
}

/// `GET /friend-requests`: requests to the caller (`incoming`) and from the caller (`outgoing`).
public struct FriendRequestList: Hashable, Sendable, Codable {
    /// Pending requests to the caller.
    public var incoming: [FriendRequest]
    /// Pending requests the caller sent.
    public var outgoing: [FriendRequest]

    /// The pending requests both ways.
    public init(incoming: [FriendRequest], outgoing: [FriendRequest]) {
        self.incoming = incoming
        self.outgoing = outgoing
    }
}

/// `GET /conversations?updatedSince=`: at most 100, oldest `updatedAt` first.
public struct ConversationList: Hashable, Sendable, Codable {
    /// The page of conversations, oldest `updatedAt` first.
    public var conversations: [Conversation]
    /// A page of conversations.
    public init(conversations: [Conversation]) { self.conversations = conversations }
}

/// `GET /conversations/{id}/messages`: ascending after `afterSeq`, descending before `beforeSeq`.
public struct MessagePage: Hashable, Sendable, Codable {
    /// The page of messages, in the direction asked for.
    public var messages: [Message]
    /// True when more messages follow in the same direction.
    public var hasMore: Bool

    /// A page of messages.
    public init(messages: [Message], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// `POST /media`: the id to put in a message's `mediaId`, and where the file is served.
public struct MediaUpload: Hashable, Sendable, Codable {
    /// The id for a message's `mediaId`.
    public var mediaId: Media.ID
    /// Where the file can be downloaded.
    public var url: String

    /// An upload result.
    public init(mediaId: Media.ID, url: String) {
        self.mediaId = mediaId
        self.url = url
    }
}

/// A downloaded media file (`GET /media/{mediaId}`): the raw bytes and their `Content-Type`. The REST client builds
/// it from the response itself (the body is the file, not JSON); its Codable form, `{ data (base64), contentType }`,
/// is for storing or logging one.
public struct MediaFile: Hashable, Sendable, Codable {
    /// The file's bytes.
    public var data: Data
    /// Its media type, e.g. `image/jpeg`, as the uploader declared it.
    public var contentType: String

    /// A file of `contentType` holding `data`.
    public init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}

/// The response of the endpoints that answer 204 No Content; decodes from any body.
public struct NoContent: Hashable, Sendable, Codable {
    /// The empty response.
    public init() {}
    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {}
}
