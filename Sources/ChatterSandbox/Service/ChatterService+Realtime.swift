import ChatterBots

// The operations the realtime half calls (names fixed by the sandbox brief).
extension ChatterService {
    /// Validates a realtime connection's credentials and counts the connect against the device's rate limit.
    public func authenticate(clientKey: String, accessToken: String) async throws(SandboxAuthError) -> SandboxCaller {
        throw .invalidToken
    }

    /// `message.send` and `POST …/messages`: creates the message once per (sender, `clientMessageId`); a resend
    /// returns the same ack. `message.new` goes to every member device except the sending one.
    public func sendMessage(_ caller: SandboxCaller, _ send: MessageSend) async throws(ChatterErrorBody) -> SandboxOutcome<MessageAck> {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// `sync.request`: the messages after each named conversation's `seq`, for the conversations the caller is in.
    public func sync(_ caller: SandboxCaller, _ request: SyncRequest) async throws(ChatterErrorBody) -> SyncResponse {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// `receipt.delivered`: moves the caller's delivered watermark forward (capped at the last `seq`).
    public func markDelivered(_ caller: SandboxCaller, conversationId: Conversation.ID, seq: Int) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// `receipt.read`: moves the caller's read (and delivered) watermark forward (capped at the last `seq`).
    public func markRead(_ caller: SandboxCaller, conversationId: Conversation.ID, seq: Int) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// The users who may see `userId`'s presence: their friends, unless `privacy.lastSeen` is `nobody`.
    public func presenceAudience(of userId: User.ID) async throws(ChatterErrorBody) -> [User.ID] {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// The friends of `viewer` whose presence `viewer` may see (for `presence.snapshot`).
    public func visibleFriendIDs(for viewer: User.ID) async throws(ChatterErrorBody) -> [User.ID] {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// The friends of `userId`.
    public func friendIDs(of userId: User.ID) async throws(ChatterErrorBody) -> [User.ID] {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// When `userId`'s last socket closed, or nil if never recorded.
    public func lastSeen(of userId: User.ID) async throws(ChatterErrorBody) -> Timestamp? {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// Records when `userId`'s last socket closed.
    public func setLastSeen(_ userId: User.ID, at time: Timestamp) async throws(ChatterErrorBody) {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// The members of a conversation (empty for an unknown one).
    public func conversationMemberIDs(_ conversationId: Conversation.ID) async throws(ChatterErrorBody) -> [User.ID] {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// Whether `userId` is a member of the conversation.
    public func isMember(_ userId: User.ID, of conversationId: Conversation.ID) async throws(ChatterErrorBody) -> Bool {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// Composes, records and returns the pushes `trigger` causes for `devices` (the recipients' devices that
    /// have no open socket). Devices without a push token, revoked devices, the sender's own devices and
    /// members who muted the conversation get none.
    public func pushes(for trigger: PushTrigger, to devices: [Device.ID]) async throws(ChatterErrorBody) -> [RecordedPush] {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }

    /// The signed-in (not revoked) devices of `userIds`, with their push tokens.
    public func devices(ofUsers userIds: [User.ID]) async throws(ChatterErrorBody) -> [SandboxDevice] {
        throw ChatterErrorBody(code: .internalError, message: "Not written yet")
    }
}
