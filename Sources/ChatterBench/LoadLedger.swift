import ChatterBots
import Foundation

/// The state of the load server, in memory: accounts, devices and tokens, friendships, direct conversations with
/// their messages and watermarks, and the idempotency keys of `message.send`. A plain value the server keeps
/// behind one lock; every operation is synchronous and returns the events it causes, by recipient user.
///
/// It keeps the rules a bot's correctness depends on (gap-free seq per conversation, one message per
/// (sender, clientMessageId), sync with `hasMore`, watermarks only moving forward, members only) and leaves out
/// what a load test does not touch (groups, media, edits, pushes, rate limits, password hashing).
struct LoadLedger {
    struct Account {
        var user: User
        var password: String
        var friends: Set<User.ID> = []
        var conversations: [Conversation.ID] = []
        var devices: Set<Device.ID> = []
    }

    /// A conversation and its messages; a class so that appending a message never copies the history.
    final class StoredConversation {
        var conversation: Conversation
        var messages: [Message] = []

        init(conversation: Conversation) {
            self.conversation = conversation
        }
    }

    /// An event for the devices of `recipients`, except `excludedDevice` (the sending device).
    struct Delivery {
        var frame: ServerFrame
        var recipients: [User.ID]
        var excludedDevice: Device.ID?
    }

    private(set) var accounts: [User.ID: Account] = [:]
    private var userByName: [String: User.ID] = [:]
    private var accessTokens: [String: Caller] = [:]
    private var refreshTokens: [String: Caller] = [:]
    private var deviceOwner: [Device.ID: User.ID] = [:]
    private var conversations: [Conversation.ID: StoredConversation] = [:]
    private var acks = IdempotencyTable()
    private var identifiers = IdentifierSource()

    /// Who is calling: a user on one of its devices.
    struct Caller: Hashable {
        var userId: User.ID
        var deviceId: Device.ID
    }

    // MARK: Accounts

    mutating func createUser(username: String, password: String) -> User {
        let user = User(id: User.ID(identifiers.next()), username: username, displayName: username)
        accounts[user.id] = Account(user: user, password: password)
        userByName[username.lowercased()] = user.id
        return user
    }

    mutating func login(_ body: LoginBody) -> Result<AuthSession, ChatterErrorBody> {
        guard let userId = userByName[body.username.lowercased()], let account = accounts[userId],
            account.password == body.password
        else {
            return .failure(ChatterErrorBody(code: .invalidCredentials, message: "Wrong username or password."))
        }
        let deviceId: Device.ID
        if let requested = body.deviceId, deviceOwner[requested] == userId {
            deviceId = requested
            accessTokens = accessTokens.filter { $0.value.deviceId != requested }
            refreshTokens = refreshTokens.filter { $0.value.deviceId != requested }
        } else {
            deviceId = Device.ID(identifiers.next())
            deviceOwner[deviceId] = userId
            accounts[userId]?.devices.insert(deviceId)
        }
        return .success(issueSession(Caller(userId: userId, deviceId: deviceId)))
    }

    mutating func refresh(_ body: RefreshBody) -> Result<AuthSession, ChatterErrorBody> {
        guard let caller = refreshTokens.removeValue(forKey: body.refreshToken) else {
            return .failure(ChatterErrorBody(code: .invalidRefreshToken, message: "Unknown or used refresh token."))
        }
        accessTokens = accessTokens.filter { $0.value.deviceId != caller.deviceId }
        return .success(issueSession(caller))
    }

    private mutating func issueSession(_ caller: Caller) -> AuthSession {
        let access = "at_" + identifiers.token()
        let refresh = "rt_" + identifiers.token()
        accessTokens[access] = caller
        refreshTokens[refresh] = caller
        let user = accounts[caller.userId]?.user ?? User(id: caller.userId, username: "", displayName: "")
        return AuthSession(accessToken: access, refreshToken: refresh, expiresIn: 3600, deviceId: caller.deviceId, user: user)
    }

    func caller(accessToken: String) -> Caller? {
        accessTokens[accessToken]
    }

    mutating func makeFriends(_ first: User.ID, _ second: User.ID) {
        accounts[first]?.friends.insert(second)
        accounts[second]?.friends.insert(first)
    }

    func friends(of userId: User.ID) -> [Friend] {
        let since = Timestamp(millisecondsSince1970: 0)
        return (accounts[userId]?.friends ?? []).sorted().compactMap { id in
            accounts[id].map { Friend(user: $0.user, since: since) }
        }
    }

    func user(_ id: User.ID) -> User? { accounts[id]?.user }

    // MARK: Conversations

    mutating func directConversation(between first: User.ID, _ second: User.ID) -> Conversation {
        let now = Timestamp(Date())
        let conversation = Conversation(
            id: Conversation.ID(identifiers.next()), kind: .direct,
            members: [Member(userId: first, role: .member), Member(userId: second, role: .member)], lastSeq: 0,
            createdAt: now, updatedAt: now)
        conversations[conversation.id] = StoredConversation(conversation: conversation)
        accounts[first]?.conversations.append(conversation.id)
        accounts[second]?.conversations.append(conversation.id)
        return conversation
    }

    /// `GET /conversations?updatedSince=`: oldest `updatedAt` first, at most `limit`.
    func conversations(of userId: User.ID, updatedSince: Timestamp?, limit: Int = 100) -> [Conversation] {
        let all = (accounts[userId]?.conversations ?? []).compactMap { conversations[$0]?.conversation }
        let recent = updatedSince.map { since in all.filter { $0.updatedAt > since } } ?? all
        return Array(recent.sorted { ($0.updatedAt, $0.id) < ($1.updatedAt, $1.id) }.prefix(limit))
    }

    func conversation(_ id: Conversation.ID, for userId: User.ID) -> Conversation? {
        guard let stored = conversations[id], stored.conversation.members.contains(where: { $0.userId == userId }) else {
            return nil
        }
        return stored.conversation
    }

    /// `GET /conversations/{id}/messages?afterSeq=`: ascending, at most `limit`.
    func messages(in id: Conversation.ID, for userId: User.ID, afterSeq: Int, limit: Int) -> MessagePage? {
        guard conversation(id, for: userId) != nil, let stored = conversations[id] else { return nil }
        let start = min(max(afterSeq, 0), stored.messages.count)
        let end = min(start + limit, stored.messages.count)
        return MessagePage(messages: Array(stored.messages[start..<end]), hasMore: end < stored.messages.count)
    }

    // MARK: Messages

    /// `message.send`: a new message and its ack, or the earlier ack of the same (sender, clientMessageId).
    mutating func send(_ send: MessageSend, from caller: Caller) -> Result<(MessageAck, [Delivery]), ChatterErrorBody> {
        let key = IdempotencyTable.Key(sender: caller.userId, clientMessageId: send.clientMessageId)
        if let first = acks[key] { return .success((Self.ack(of: first, for: send.clientMessageId), [])) }
        guard let stored = conversations[send.conversationId],
            stored.conversation.members.contains(where: { $0.userId == caller.userId })
        else {
            return .failure(ChatterErrorBody(code: .notFound, message: "No such conversation."))
        }
        guard let body = send.content.body, !body.isEmpty, body.utf8.count <= 4096 || body.count <= 4096 else {
            return .failure(ChatterErrorBody(
                code: .validationFailed, message: "A text message has 1 to 4,096 characters.", details: ["field": "body"]))
        }
        let now = Timestamp(Date())
        let message = Message(
            id: Message.ID(identifiers.next()), conversationId: send.conversationId, seq: stored.messages.count + 1,
            senderId: caller.userId, clientMessageId: send.clientMessageId, kind: send.content.kind, body: body,
            replyToId: send.content.replyToId, createdAt: now)
        stored.messages.append(message)
        stored.conversation.lastSeq = message.seq
        stored.conversation.lastMessage = message
        stored.conversation.updatedAt = now
        acks[key] = message
        let ack = Self.ack(of: message, for: send.clientMessageId)
        let delivery = Delivery(
            frame: ServerFrame(.messageNew(message)), recipients: stored.conversation.members.map(\.userId),
            excludedDevice: caller.deviceId)
        return .success((ack, [delivery]))
    }

    /// The ack of the send `clientMessageId` that created `message`.
    private static func ack(of message: Message, for clientMessageId: ClientMessageID) -> MessageAck {
        MessageAck(
            clientMessageId: clientMessageId, messageId: message.id, conversationId: message.conversationId, seq: message.seq,
            createdAt: message.createdAt)
    }

    /// `receipt.delivered` / `receipt.read`: watermarks only move forward; read implies delivered.
    mutating func receipt(_ position: ReceiptPosition, read: Bool, from caller: Caller) -> [Delivery] {
        guard let stored = conversations[position.conversationId],
            let index = stored.conversation.members.firstIndex(where: { $0.userId == caller.userId })
        else { return [] }
        var member = stored.conversation.members[index]
        let seq = min(position.seq, stored.conversation.lastSeq)
        let delivered = max(member.lastDeliveredSeq, seq)
        let readSeq = read ? max(member.lastReadSeq, seq) : member.lastReadSeq
        guard delivered != member.lastDeliveredSeq || readSeq != member.lastReadSeq else { return [] }
        member.lastDeliveredSeq = delivered
        member.lastReadSeq = readSeq
        stored.conversation.members[index] = member
        let update = ReceiptUpdate(
            conversationId: position.conversationId, userId: caller.userId, lastDeliveredSeq: delivered,
            lastReadSeq: readSeq)
        return [Delivery(
            frame: ServerFrame(.receiptUpdated(update)), recipients: stored.conversation.members.map(\.userId),
            excludedDevice: caller.deviceId)]
    }

    /// `sync.request`: the messages after each named conversation's seq, for conversations the caller is in.
    func sync(_ request: SyncRequest, for userId: User.ID) -> SyncResponse {
        let limit = min(max(request.limitPerConversation ?? 100, 1), 500)
        var result: [Conversation.ID: ConversationSync] = [:]
        for (id, afterSeq) in request.conversations {
            guard let page = messages(in: id, for: userId, afterSeq: afterSeq, limit: limit),
                let conversation = conversations[id]?.conversation
            else { continue }
            result[id] = ConversationSync(
                messages: page.messages, hasMore: page.hasMore,
                members: conversation.members.map {
                    MemberWatermarks(userId: $0.userId, lastDeliveredSeq: $0.lastDeliveredSeq, lastReadSeq: $0.lastReadSeq)
                })
        }
        return SyncResponse(conversations: result)
    }
}

/// Time-ordered identifiers in the ULID alphabet (26 characters), and random tokens.
struct IdentifierSource {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    private var lastMilliseconds: UInt64 = 0
    private var counter: UInt64 = 0
    private var generator = SystemRandomNumberGenerator()
    /// The identifiers' randomness: a SplitMix64 sequence seeded once from the system (a draw from the system's
    /// generator per identifier was a `getrandom` call per message).
    private var state: UInt64 = 0

    /// A 26-character identifier: 48 bits of milliseconds, then a counter that keeps identifiers of the same
    /// millisecond ordered, then randomness.
    mutating func next() -> String {
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        if milliseconds == lastMilliseconds {
            counter += 1
        } else {
            lastMilliseconds = milliseconds
            counter = 0
        }
        var rest = counter << 40 | (nextRandom() & 0xFF_FFFF_FFFF)
        return String(unsafeUninitializedCapacity: 26) { bytes in
            var time = milliseconds
            for index in stride(from: 9, through: 0, by: -1) {
                bytes[index] = Self.alphabet[Int(time & 31)]
                time >>= 5
            }
            for index in stride(from: 25, through: 10, by: -1) {
                bytes[index] = Self.alphabet[Int(rest & 31)]
                rest >>= 5
            }
            return 26
        }
    }

    private mutating func nextRandom() -> UInt64 {
        if state == 0 { state = generator.next() | 1 }
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// 32 random lowercase hex digits.
    mutating func token() -> String {
        let high = generator.next()
        let low = generator.next()
        return String(high, radix: 16) + String(low, radix: 16)
    }
}
