import ChatterBots

// What the user sees the bot do besides sending messages: edits, deletions, reactions, typing and read receipts.
// Each waits as `nextMessage` does: for something that arrived on the user's socket, kept from the moment it
// arrived, taken once, in arrival order; bounded by the harness's `replyTimeout` unless `timeout` says otherwise.
extension TestUser {
    /// Waits for the bot's next edit of one of its messages, in `conversation` or anywhere, and returns the
    /// message as edited (`editedAt` set, the new `body`).
    ///
    /// ```swift
    /// let progress = try await alice.nextMessage()      // "Working on it…"
    /// #expect(try await alice.nextEdit().body == "Done: 3 files converted")
    /// ```
    ///
    /// - Throws: `BotTestError.timedOut` when the bot edited nothing; `.userOffline` without a socket.
    public func nextEdit(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> Message {
        let bot = harness.botUser.id
        return try await next(
            "the bot's next edit seen by \(username)", in: conversation, timeout: timeout, from: observed.changes,
            conversationOf: \.current.conversationId, where: { $0.isEdit && $0.current.senderId == bot }
        ).current
    }

    /// Waits for the bot's next deletion (for everyone) of one of its messages, in `conversation` or anywhere, and
    /// returns the message as deleted (`deletedAt` set; no body, media or reactions).
    ///
    /// - Throws: as `nextEdit(in:timeout:)`.
    public func nextDeletion(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> Message {
        let bot = harness.botUser.id
        return try await next(
            "the bot's next deletion seen by \(username)", in: conversation, timeout: timeout, from: observed.changes,
            conversationOf: \.current.conversationId, where: { $0.isDeletion && $0.current.senderId == bot }
        ).current
    }

    /// Waits for the bot's next reaction change (a reaction added or taken back) on any message, anyone's, in
    /// `conversation` or anywhere, and returns the message with its reactions now. Other members' reactions do
    /// not count.
    ///
    /// ```swift
    /// let question = try await alice.send("is the build green?")
    /// let reacted = try await alice.nextReactionChange()
    /// #expect(reacted.id == question.id)
    /// #expect(reacted.reactions.contains { $0.emoji == "👍" && $0.userIds.contains(harness.botUser.id) })
    /// ```
    ///
    /// - Throws: as `nextEdit(in:timeout:)`.
    public func nextReactionChange(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> Message {
        let bot = harness.botUser.id
        return try await next(
            "the bot's next reaction change seen by \(username)", in: conversation, timeout: timeout, from: observed.changes,
            conversationOf: \.current.conversationId, where: { !$0.isDeletion && $0.reactionsChanged(by: bot) }
        ).current
    }

    /// Waits for the bot's next typing change, in `conversation` or anywhere: `isTyping` true when it started
    /// showing "typing…", false when it stopped (or the service ended it, 5 s of virtual time after the bot's
    /// last `typing.start`).
    ///
    /// ```swift
    /// try await alice.send("think hard")
    /// #expect(try await alice.nextTyping().isTyping)
    /// _ = try await alice.nextMessage()
    /// #expect(try await alice.nextTyping().isTyping == false)
    /// ```
    ///
    /// - Throws: as `nextEdit(in:timeout:)`.
    public func nextTyping(in conversation: Conversation? = nil, timeout: Duration? = nil) async throws -> TypingIndicator {
        let bot = harness.botUser.id
        return try await next(
            "the bot's next typing change seen by \(username)", in: conversation, timeout: timeout, from: observed.typing,
            conversationOf: \.conversationId, where: { $0.userId == bot })
    }

    /// Waits until this user sees that the bot has read its conversation up to `message` (the bot's read
    /// watermark there at or past `message.seq`) and returns the bot's watermarks as the user last saw them.
    /// It looks at the conversation's members once, then waits for the bot's `receipt.updated` on the socket; a
    /// receipt that arrived before the call counts. Several waits may ask about one receipt.
    ///
    /// ```swift
    /// let sent = try await alice.send("hello")
    /// #expect(try await alice.waitUntilBotHasRead(sent).lastReadSeq >= sent.seq)
    /// ```
    ///
    /// - Throws: `BotTestError.timedOut` when the bot did not read it (its runtime sends `receipt.read` after
    ///   handling a message, unless configured not to); `.userOffline` when the conversation's members do not
    ///   show it read and the user has no socket to see the receipt on.
    @discardableResult
    public func waitUntilBotHasRead(_ message: Message, timeout: Duration? = nil) async throws -> MemberWatermarks {
        let bot = harness.botUser.id
        let conversation = try await rest.conversation(message.conversationId)
        if let member = conversation.members.first(where: { $0.userId == bot }), member.lastReadSeq >= message.seq {
            return MemberWatermarks(userId: bot, lastDeliveredSeq: member.lastDeliveredSeq, lastReadSeq: member.lastReadSeq)
        }
        guard isOnline else { throw BotTestError.userOffline(username: username) }
        let receipts = observed.receipts
        let update = try await withRealTimeLimit(
            timeout ?? harness.configuration.replyTimeout,
            awaiting: "the bot to read conversation \(message.conversationId) up to seq \(message.seq), as \(username) sees it"
        ) {
            try await receipts.first {
                $0.userId == bot && $0.conversationId == message.conversationId && $0.lastReadSeq >= message.seq
            }
        }
        return MemberWatermarks(userId: bot, lastDeliveredSeq: update.lastDeliveredSeq, lastReadSeq: update.lastReadSeq)
    }
}
