/// Calls to the Chatter service, made at once rather than with the handler's unit of work: they are reads, or
/// actions whose repeat is harmless (renaming a group to the same title, muting again) or refused by the service
/// (accepting a request already accepted), so holding them back would only delay what the handler needs now. They
/// are not undone when the handler throws. Each mirrors an endpoint of the contract and throws its
/// `ChatterAPIError`s.
public protocol BotService: Sendable {
    // MARK: People

    /// A user's public profile; `NOT_FOUND` when the bot cannot see them.
    func user(_ id: User.ID) async throws -> User

    /// The user with this exact username, or nil when there is none.
    func user(named username: String) async throws -> User?

    /// The bot's own profile, with its privacy settings.
    func profile() async throws -> CurrentUser

    /// Changes the non-nil fields of the bot's profile (friends get `user.updated`) and returns its public profile.
    func updateProfile(displayName: String?, privacy: PrivacySettings?) async throws -> User

    // MARK: Friends

    /// The bot's friends.
    func friends() async throws -> [Friend]

    /// Pending friend requests to and from the bot.
    func friendRequests() async throws -> FriendRequestList

    /// Accepts a request to the bot and returns the new friend.
    func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend

    /// Declines a request to the bot (the sender is not told).
    func declineFriendRequest(_ id: FriendRequest.ID) async throws

    /// Sends a friend request, by user id or username.
    func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest

    /// Withdraws a friend request the bot sent (the recipient gets `friend_request.cancelled`).
    func cancelFriendRequest(_ id: FriendRequest.ID) async throws

    /// Ends a friendship.
    func removeFriend(_ userId: User.ID) async throws

    // MARK: Conversations

    /// The direct conversation with a friend, created if needed.
    func directConversation(with userId: User.ID) async throws -> Conversation

    /// A conversation the bot is a member of.
    func conversation(_ id: Conversation.ID) async throws -> Conversation

    /// The bot's conversations changed after `updatedSince` (every one when nil), oldest change first, at most
    /// 100: pass the last one's `updatedAt` to read on.
    func conversations(updatedSince: Timestamp?) async throws -> [Conversation]

    /// One page of a conversation's history: up to `limit` messages (1 to 500) with `seq` below `beforeSeq`,
    /// newest first. Prefer `history(of:before:pageSize:)`, which pages on by itself.
    func messages(in conversationId: Conversation.ID, beforeSeq: Int, limit: Int) async throws -> MessagePage

    /// The bytes and type of an uploaded file: one the bot uploaded, or one a message of its conversations
    /// carries (`message.mediaId`).
    func downloadMedia(_ mediaId: Media.ID) async throws -> MediaFile

    /// Mutes or unmutes a conversation for the bot (a muted conversation sends the bot's devices no pushes).
    func setMuted(_ muted: Bool, conversation conversationId: Conversation.ID) async throws

    // MARK: Groups

    /// Creates a group owned by the bot with `memberIds` (who must be the bot's friends) as its other members.
    func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation

    /// Changes the non-nil title or avatar of a group the bot owns or administers; members get
    /// `conversation.updated`. Returns the group as it is now.
    func updateGroup(_ conversationId: Conversation.ID, title: String?, avatarUrl: String?) async throws -> Conversation

    /// Adds the bot's friends to a group the bot owns or administers; returns the group as it is now.
    func addMembers(_ userIds: [User.ID], to conversationId: Conversation.ID) async throws -> Conversation

    /// Removes a member from a group the bot owns or administers (they get `conversation.removed`).
    func removeMember(_ userId: User.ID, from conversationId: Conversation.ID) async throws

    /// The bot leaves a group: it gets no more of its messages.
    func leaveConversation(_ conversationId: Conversation.ID) async throws
}

extension BotService {
    /// A conversation's messages from newest to oldest, fetched a page of `pageSize` (1 to 500) at a time as the
    /// sequence is read: those with `seq` below `before`, or every one when `before` is nil.
    public func history(of conversationId: Conversation.ID, before seq: Int? = nil, pageSize: Int = 100) -> MessageHistory {
        MessageHistory(conversationId: conversationId, before: seq, pageSize: pageSize, service: self)
    }
}
