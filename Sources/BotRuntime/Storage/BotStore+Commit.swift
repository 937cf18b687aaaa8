import ChatterBots

extension BotStore {
    /// Commits everything `unit` collected in ONE transaction: its trigger marked done (the message handled,
    /// or the occurrence completed), its state, schedule and dialog changes, and its outbox entries. Either
    /// all of it is stored or, when it throws, none of it.
    ///
    /// Commits that arrive while another transaction runs are grouped into the next one. Commit the units
    /// of one conversation in seq order; to keep read-your-writes across its messages, run a conversation's
    /// next handler after the previous commit returned (other conversations run meanwhile and share the
    /// transactions).
    ///
    /// - Throws: ``BotStoreError/alreadyHandled(_:conversation:seq:)``, ``BotStoreError/outOfOrder(_:conversation:seq:expectedSeq:)``,
    ///   ``BotStoreError/unknownConversation(_:)`` or ``BotStoreError/occurrenceNotClaimed(_:occurrence:)``
    ///   when the unit is refused; ``BotStoreError/storage(operation:underlying:)`` when SQLite failed.
    @discardableResult
    public func commit(_ unit: UnitOfWork) async throws(BotStoreError) -> CommitReceipt {
        guard let result = try await commit([unit]).first else {
            throw .storage(operation: "commit a unit", underlying: StoreWriterMismatch(expected: 1, got: 0))
        }
        return try result.get()
    }

    /// Commits `units` in order, each all or nothing, in one transaction (shared with other hot-path writes).
    /// A refused unit is undone alone and reported in its result; the others commit. Throws only when the
    /// transaction itself failed, and then none of them is stored.
    public func commit(_ units: [UnitOfWork]) async throws(BotStoreError) -> [Result<CommitReceipt, BotStoreError>] {
        guard !units.isEmpty else { return [] }
        return try await submit(.commit(units, faults: faults), "commit units")
    }

    /// Commits `units` as ``commit(_:)-([UnitOfWork])`` does, but at once on the caller's thread, when nothing else
    /// is being committed and the connection is free; nil, with nothing committed, when they must wait their turn.
    func commitInline(_ units: [UnitOfWork]) -> Result<[Result<CommitReceipt, BotStoreError>], BotStoreError>? {
        writeInline(.commit(units, faults: faults), "commit units")
    }

    /// Forgets what was handed out of `conversation` and not committed, after the store refused one of its units:
    /// those messages are handed out again when they come back (from a REST page, or parked). Returns the
    /// committed contiguous seq (nil: the conversation has no cursor) and the parked messages now next.
    func rewind(_ conversation: Conversation.ID) async throws(BotStoreError) -> RewindOutcome {
        try await submit(.rewind(conversation), "rewind a conversation")
    }
}
