import ChatterBots
import SQLite

// Messages: sending (idempotent), paging, editing, deleting for everyone, reactions, sync and receipts.
extension ChatterService {
    // MARK: Sending

    /// `POST /conversations/{id}/messages`: creates the message once per (sender, `clientMessageId`), with the
    /// next gap-free `seq`; a resend within `idempotencyRetention` returns the SAME message (`isNew` false) and
    /// causes nothing. `message.new` goes to every member's devices except the sending device, with a push
    /// trigger for the devices without a socket.
    ///
    /// Membership is checked before the idempotency record: the answer is the whole current message, other
    /// members' reactions and edits included, so a former member must not read it by resending an old
    /// `clientMessageId`. A key already used in another conversation is `VALIDATION_FAILED` (it still names its
    /// first message, so it cannot name a second one).
    public func postMessage(_ caller: SandboxCaller, _ conversationId: Conversation.ID, _ body: MessagePostBody) async throws(ChatterErrorBody) -> SandboxOutcome<SandboxCreation<Message>> {
        let content = try validatedSend(body)
        let time = now
        let messageId: Message.ID = identifiers.make(at: time)
        return try await write { db in
            _ = try self.requireMember(db, caller.userId, of: conversationId)
            if let existing = try self.previouslySent(db, by: caller.userId, as: body.clientMessageId, at: time) {
                try Self.requireSameConversation(existing, conversationId)
                return SandboxOutcome(value: SandboxCreation(value: existing, isNew: false))
            }
            return try self.storeMessage(db, content, id: messageId, from: caller, as: body.clientMessageId, in: conversationId, at: time)
        }
    }

    /// `message.send`: the realtime twin of `postMessage`, answered with the ack (the same ack for every resend).
    ///
    /// Unlike `postMessage`, a resend of a key stored in this conversation is answered before membership is
    /// checked: a sender who left (or was removed) after the message was stored but before the ack reached them
    /// still gets that ack, as the contract promises. The ack names only the sender's own message (ids, `seq`,
    /// time), so nothing of the conversation leaks.
    public func sendMessage(_ caller: SandboxCaller, _ send: MessageSend) async throws(ChatterErrorBody) -> SandboxOutcome<MessageAck> {
        let content = try validatedSend(MessagePostBody(clientMessageId: send.clientMessageId, content: send.content))
        let time = now
        let messageId: Message.ID = identifiers.make(at: time)
        let outcome = try await write { db in
            let existing = try self.previouslySent(db, by: caller.userId, as: send.clientMessageId, at: time)
            if let existing, existing.conversationId == send.conversationId {
                return SandboxOutcome(value: existing)
            }
            _ = try self.requireMember(db, caller.userId, of: send.conversationId)
            if let existing { try Self.requireSameConversation(existing, send.conversationId) }
            let stored = try self.storeMessage(
                db, content, id: messageId, from: caller, as: send.clientMessageId, in: send.conversationId, at: time)
            return SandboxOutcome(value: stored.value.value, deliveries: stored.deliveries)
        }
        let message = outcome.value
        let ack = MessageAck(
            clientMessageId: send.clientMessageId, messageId: message.id, conversationId: message.conversationId,
            seq: message.seq, createdAt: message.createdAt)
        return SandboxOutcome(value: ack, deliveries: outcome.deliveries)
    }

    /// The checks of a send that need no database: the `clientMessageId`'s length and the content.
    private func validatedSend(_ body: MessagePostBody) throws(ChatterErrorBody) -> MessageContent {
        guard (1...128).contains(body.clientMessageId.rawValue.count) else {
            throw .validation(field: "clientMessageId", "clientMessageId is required: 1 to 128 characters, unique per message you send.")
        }
        return try validatedContent(body.content)
    }

    /// The message `sender` already stored with `clientMessageId` within `idempotencyRetention`, in any
    /// conversation, if any.
    private func previouslySent(
        _ db: Database, by sender: User.ID, as clientMessageId: ClientMessageID, at time: Timestamp
    ) throws -> Message? {
        let retainedSince = time.advanced(by: .zero - configuration.idempotencyRetention).millisecondsSince1970
        guard let existingId = try db.fetchOne(
            String.self,
            sql: "SELECT message_id FROM idempotency_keys WHERE sender_id = ? AND client_message_id = ? AND created_at >= ?",
            arguments: [sender.rawValue, clientMessageId.rawValue, retainedSince])
        else { return nil }
        return try db.message(Message.ID(existingId))
    }

    /// A key already used in another conversation is `VALIDATION_FAILED`: it names its first message for good.
    private static func requireSameConversation(_ existing: Message, _ conversationId: Conversation.ID) throws {
        guard existing.conversationId == conversationId else {
            throw ChatterErrorBody.validation(
                field: "clientMessageId",
                "This clientMessageId was already used for a message in another conversation; give every message its own.")
        }
    }

    /// Stores a new message of a member with the next `seq` and its idempotency record, and says whom to tell.
    private func storeMessage(
        _ db: Database, _ content: MessageContent, id messageId: Message.ID, from caller: SandboxCaller,
        as clientMessageId: ClientMessageID, in conversationId: Conversation.ID, at time: Timestamp
    ) throws -> SandboxOutcome<SandboxCreation<Message>> {
        let retainedSince = time.advanced(by: .zero - configuration.idempotencyRetention).millisecondsSince1970
        guard let conversation = try db.storedConversation(conversationId) else { throw ChatterErrorBody.conversationNotFound }
        let members = try db.members(of: conversationId)
        if conversation.kind == .direct {
            for member in members where member.userId != caller.userId {
                guard try db.areFriends(caller.userId, member.userId) else { throw ChatterErrorBody.notFriends }
            }
        }
        try validateReferences(db, content, from: caller.userId, in: conversationId)
        let seq = conversation.lastSeq + 1
        try db.execute(
            sql: """
                INSERT INTO messages (id, conversation_id, seq, sender_id, client_message_id, kind, body, media_id, reply_to_id, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                messageId.rawValue, conversationId.rawValue, seq, caller.userId.rawValue, clientMessageId.rawValue,
                content.kind.rawValue, content.body, content.mediaId?.rawValue, content.replyToId?.rawValue,
                time.millisecondsSince1970,
            ])
        let updatedAt = try db.nextConversationUpdateTime(time, mayTie: configuration.conversationUpdateTimesMayTie)
        try db.execute(
            sql: "UPDATE conversations SET last_seq = ?, updated_at = ? WHERE id = ?",
            arguments: [seq, updatedAt.millisecondsSince1970, conversationId.rawValue])
        try db.execute(sql: "DELETE FROM idempotency_keys WHERE created_at < ?", arguments: [retainedSince])
        try db.execute(
            sql: "INSERT OR REPLACE INTO idempotency_keys (sender_id, client_message_id, message_id, created_at) VALUES (?, ?, ?, ?)",
            arguments: [caller.userId.rawValue, clientMessageId.rawValue, messageId.rawValue, time.millisecondsSince1970])
        guard let message = try db.message(messageId) else { throw ChatterErrorBody.messageNotFound }
        return SandboxOutcome(value: SandboxCreation(value: message, isNew: true), deliveries: [
            SandboxDelivery(
                event: .messageNew(message), recipients: members.map(\.userId), excludedDevice: caller.deviceId,
                pushTrigger: .newMessage(message))
        ])
    }

    // MARK: Reading

    /// `GET /conversations/{id}/messages`: a page of at most `limit` messages (1 to `maxMessagePageSize`).
    public func messages(_ caller: SandboxCaller, _ conversationId: Conversation.ID, _ query: MessagePageQuery, limit: Int?) async throws(ChatterErrorBody) -> MessagePage {
        let limit = limit ?? configuration.defaultMessagePageSize
        guard (1...configuration.maxMessagePageSize).contains(limit) else {
            throw .validation(field: "limit", "limit is 1 to \(configuration.maxMessagePageSize).")
        }
        switch query {
        case .after(let seq) where seq < 0: throw .validation(field: "afterSeq", "afterSeq is 0 or more.")
        case .before(let seq) where seq < 1: throw .validation(field: "beforeSeq", "beforeSeq is 1 or more.")
        default: break
        }
        return try await read { db in
            _ = try self.requireMember(db, caller.userId, of: conversationId)
            let page: [Message]
            switch query {
            case .after(let seq):
                page = try db.messages(in: conversationId, afterSeq: seq, limit: limit + 1)
            case .before(let seq):
                page = try db.messages(in: conversationId, beforeSeq: seq, limit: limit + 1)
            case .latest:
                page = try db.messages(in: conversationId, beforeSeq: Int.max, limit: limit + 1)
            }
            return MessagePage(messages: Array(page.prefix(limit)), hasMore: page.count > limit)
        }
    }

    /// `sync.request`: for each named conversation the caller is in, the messages after the given `seq`
    /// (ascending, at most `limitPerConversation`, default `defaultSyncLimit`, capped at `maxSyncLimit`),
    /// `hasMore`, and every member's watermarks. Conversations the caller is not in are left out.
    public func sync(_ caller: SandboxCaller, _ request: SyncRequest) async throws(ChatterErrorBody) -> SyncResponse {
        let requested = request.limitPerConversation ?? configuration.defaultSyncLimit
        guard requested >= 1 else { throw .validation(field: "limitPerConversation", "limitPerConversation is 1 or more.") }
        let limit = min(requested, configuration.maxSyncLimit)
        for (id, seq) in request.conversations where seq < 0 {
            throw .validation(field: "conversations.\(id.rawValue)", "A conversation's last seq is 0 or more.")
        }
        return try await read { db in
            var result: [Conversation.ID: ConversationSync] = [:]
            for (id, seq) in request.conversations {
                guard try db.member(caller.userId, of: id) != nil else { continue }
                let messages = try db.messages(in: id, afterSeq: seq, limit: limit + 1)
                result[id] = ConversationSync(
                    messages: Array(messages.prefix(limit)), hasMore: messages.count > limit,
                    members: try db.members(of: id).map(\.watermarks))
            }
            return SyncResponse(conversations: result)
        }
    }

    // MARK: Changing messages

    /// `PATCH …/messages/{messageId}` (the sender only): new text or caption; every member gets `message.updated`.
    public func editMessage(_ caller: SandboxCaller, _ conversationId: Conversation.ID, _ messageId: Message.ID, _ body: MessageEditBody) async throws(ChatterErrorBody) -> SandboxOutcome<Message> {
        let time = now
        let maxCharacters = configuration.maxMessageCharacters
        return try await write { db in
            let message = try self.visibleMessage(db, caller, conversationId, messageId)
            guard message.senderId == caller.userId else { throw ChatterErrorBody.forbidden("Only the sender can edit a message.") }
            guard !message.isDeleted else { throw ChatterErrorBody.forbidden("A message deleted for everyone cannot be edited.") }
            let newBody = try Self.validatedBody(body.body, required: message.kind == .text, maxCharacters: maxCharacters)
            try db.execute(
                sql: "UPDATE messages SET body = ?, edited_at = ? WHERE id = ?",
                arguments: [newBody, time.millisecondsSince1970, messageId.rawValue])
            return try self.messageUpdated(db, messageId, conversationId)
        }
    }

    /// `DELETE …/messages/{messageId}` (the sender only): deletes for everyone (`deletedAt` set, `body`,
    /// `mediaId` and reactions cleared; the `seq` stays). Deleting again changes nothing.
    public func deleteMessage(_ caller: SandboxCaller, _ conversationId: Conversation.ID, _ messageId: Message.ID) async throws(ChatterErrorBody) -> SandboxOutcome<Message> {
        let time = now
        return try await write { db in
            let message = try self.visibleMessage(db, caller, conversationId, messageId)
            guard message.senderId == caller.userId else { throw ChatterErrorBody.forbidden("Only the sender can delete a message for everyone.") }
            guard !message.isDeleted else { return SandboxOutcome(value: message) }
            try db.execute(
                sql: "UPDATE messages SET body = NULL, media_id = NULL, deleted_at = ? WHERE id = ?",
                arguments: [time.millisecondsSince1970, messageId.rawValue])
            try db.execute(sql: "DELETE FROM reactions WHERE message_id = ?", arguments: [messageId.rawValue])
            return try self.messageUpdated(db, messageId, conversationId)
        }
    }

    /// `PUT …/reactions/{emoji}`: adds the caller's reaction (once); members get `message.updated` when it changed.
    public func addReaction(_ caller: SandboxCaller, _ conversationId: Conversation.ID, _ messageId: Message.ID, emoji: String) async throws(ChatterErrorBody) -> SandboxOutcome<Message> {
        try validateEmoji(emoji)
        let time = now
        return try await write { db in
            let message = try self.visibleMessage(db, caller, conversationId, messageId)
            guard !message.isDeleted else { throw ChatterErrorBody.forbidden("A message deleted for everyone takes no reactions.") }
            try db.execute(
                sql: "INSERT OR IGNORE INTO reactions (message_id, emoji, user_id, created_at) VALUES (?, ?, ?, ?)",
                arguments: [messageId.rawValue, emoji, caller.userId.rawValue, time.millisecondsSince1970])
            guard db.changes > 0 else { return SandboxOutcome(value: message) }
            return try self.messageUpdated(db, messageId, conversationId)
        }
    }

    /// `DELETE …/reactions/{emoji}`: removes the caller's reaction; members get `message.updated` when it changed.
    public func removeReaction(_ caller: SandboxCaller, _ conversationId: Conversation.ID, _ messageId: Message.ID, emoji: String) async throws(ChatterErrorBody) -> SandboxOutcome<Message> {
        try validateEmoji(emoji)
        return try await write { db in
            let message = try self.visibleMessage(db, caller, conversationId, messageId)
            try db.execute(
                sql: "DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?",
                arguments: [messageId.rawValue, emoji, caller.userId.rawValue])
            guard db.changes > 0 else { return SandboxOutcome(value: message) }
            return try self.messageUpdated(db, messageId, conversationId)
        }
    }

    // MARK: Receipts

    /// `receipt.delivered`: moves the caller's delivered watermark forward, capped at the conversation's last
    /// `seq`. When it moved, every member's devices (the caller's other devices included) get `receipt.updated`.
    public func markDelivered(_ caller: SandboxCaller, conversationId: Conversation.ID, seq: Int) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        try await moveWatermarks(caller, conversationId, seq: seq, read: false)
    }

    /// `receipt.read`: moves the caller's read watermark (and the delivered one with it) forward, capped at the
    /// conversation's last `seq`; `receipt.updated` as for `markDelivered`.
    public func markRead(_ caller: SandboxCaller, conversationId: Conversation.ID, seq: Int) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        try await moveWatermarks(caller, conversationId, seq: seq, read: true)
    }

    private func moveWatermarks(_ caller: SandboxCaller, _ conversationId: Conversation.ID, seq: Int, read: Bool) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        guard seq >= 0 else { throw .validation(field: "seq", "seq is 0 or more.") }
        return try await write { db in
            let member = try self.requireMember(db, caller.userId, of: conversationId)
            guard let conversation = try db.storedConversation(conversationId) else { throw ChatterErrorBody.conversationNotFound }
            let capped = min(seq, conversation.lastSeq)
            let lastRead = read ? max(member.lastReadSeq, capped) : member.lastReadSeq
            let lastDelivered = max(member.lastDeliveredSeq, capped, lastRead)
            guard lastRead != member.lastReadSeq || lastDelivered != member.lastDeliveredSeq else {
                return SandboxOutcome(deliveries: [])
            }
            try db.execute(
                sql: "UPDATE members SET last_delivered_seq = ?, last_read_seq = ? WHERE conversation_id = ? AND user_id = ?",
                arguments: [lastDelivered, lastRead, conversationId.rawValue, caller.userId.rawValue])
            let update = ReceiptUpdate(
                conversationId: conversationId, userId: caller.userId, lastDeliveredSeq: lastDelivered, lastReadSeq: lastRead)
            return SandboxOutcome(deliveries: [
                SandboxDelivery(
                    event: .receiptUpdated(update), recipients: try db.members(of: conversationId).map(\.userId),
                    excludedDevice: caller.deviceId)
            ])
        }
    }

    // MARK: Rules

    /// The message if it is in a conversation the caller is a member of; NOT_FOUND otherwise.
    private func visibleMessage(_ db: Database, _ caller: SandboxCaller, _ conversationId: Conversation.ID, _ messageId: Message.ID) throws -> Message {
        _ = try requireMember(db, caller.userId, of: conversationId)
        guard let message = try db.message(messageId), message.conversationId == conversationId else {
            throw ChatterErrorBody.messageNotFound
        }
        return message
    }

    private func messageUpdated(_ db: Database, _ messageId: Message.ID, _ conversationId: Conversation.ID) throws -> SandboxOutcome<Message> {
        guard let message = try db.message(messageId) else { throw ChatterErrorBody.messageNotFound }
        return SandboxOutcome(value: message, deliveries: [
            SandboxDelivery(event: .messageUpdated(message), recipients: try db.members(of: conversationId).map(\.userId))
        ])
    }

    /// Checks what can be checked without the store: the type, the body's length, media presence.
    func validatedContent(_ content: MessageContent) throws(ChatterErrorBody) -> MessageContent {
        var content = content
        switch content.kind {
        case .text:
            guard content.mediaId == nil else {
                throw .validation(field: "mediaId", "A text message carries no media; use type photo, voice, video or document.")
            }
            content.body = try Self.validatedBody(content.body, required: true, maxCharacters: configuration.maxMessageCharacters)
        case .photo, .voice, .video, .document:
            guard content.mediaId != nil else {
                throw .validation(field: "mediaId", "A \(content.kind.rawValue) message needs the mediaId of an upload (POST /media).")
            }
            content.body = try Self.validatedBody(content.body, required: false, maxCharacters: configuration.maxMessageCharacters)
        case .system, .unrecognized:
            throw .validation(field: "type", "type is text, photo, voice, video or document (\"\(content.kind.rawValue)\" cannot be sent).")
        }
        return content
    }

    /// A text body must have a non-blank text; a caption may be absent (an empty caption counts as none).
    static func validatedBody(_ body: String?, required: Bool, maxCharacters: Int) throws(ChatterErrorBody) -> String? {
        let isBlank = body?.allSatisfy(\.isWhitespace) ?? true
        if isBlank {
            if required { throw .validation(field: "body", "A text message needs a body that is not empty.") }
            return nil
        }
        if let body, body.utf8.count > maxCharacters, body.count > maxCharacters {
            throw .validation(field: "body", "A message body has at most \(maxCharacters) characters (this one has \(body.count)).")
        }
        return body
    }

    /// The media must be an upload of the sender's of the kind's family (another user's upload is reported like a
    /// missing one, so its existence does not leak); the reply must be in the same conversation.
    private func validateReferences(
        _ db: Database, _ content: MessageContent, from sender: User.ID, in conversationId: Conversation.ID
    ) throws {
        if let mediaId = content.mediaId {
            guard let media = try db.fetchOne(
                StoredMedia.self, sql: "SELECT id, owner_id, content_type, byte_count FROM media WHERE id = ?",
                arguments: [mediaId.rawValue]), media.ownerId == sender
            else {
                throw ChatterErrorBody.validation(
                    field: "mediaId", "You have no upload with this mediaId. Upload the file with POST /media first.")
            }
            let family = media.contentType.split(separator: "/").first.map(String.init) ?? ""
            let fits: Bool
            switch content.kind {
            case .photo: fits = family == "image"
            case .voice: fits = family == "audio"
            case .video: fits = family == "video"
            case .document: fits = Self.mediaType(media.contentType) == "application/pdf"
            default: fits = true
            }
            guard fits else {
                throw ChatterErrorBody.validation(
                    field: "mediaId", "A \(content.kind.rawValue) message cannot carry \(media.contentType) media.")
            }
        }
        if let replyToId = content.replyToId {
            guard let original = try db.message(replyToId), original.conversationId == conversationId else {
                throw ChatterErrorBody.validation(field: "replyToId", "replyToId must name a message of the same conversation.")
            }
        }
    }

    private func validateEmoji(_ emoji: String) throws(ChatterErrorBody) {
        guard emoji.count == 1, let character = emoji.first, !character.isWhitespace,
            !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }), emoji.utf8.count <= 64
        else {
            throw .validation(field: "emoji", "A reaction is one emoji (one character).")
        }
    }
}
