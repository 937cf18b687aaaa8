import Foundation

/// The flat calls of the context before it was grouped, kept so existing bots compile; each forwards to its group.
extension BotContext {
    /// Forwards to `messaging.setTyping(_:in:)`.
    @available(*, deprecated, message: "use context.messaging.setTyping(_:in:)")
    public func setTyping(_ isTyping: Bool, in conversationId: Conversation.ID) async throws {
        try await messaging.setTyping(isTyping, in: conversationId)
    }

    /// Forwards to `state.data(for:in:)`.
    @available(*, deprecated, message: "use context.state.data(for:in:)")
    public func stateData(for key: String, in scope: StateScope) async throws -> Data? {
        try await state.data(for: key, in: scope)
    }

    /// Forwards to `state.setData(_:for:in:)`.
    @available(*, deprecated, message: "use context.state.setData(_:for:in:)")
    public func setStateData(_ data: Data?, for key: String, in scope: StateScope) async throws {
        try await state.setData(data, for: key, in: scope)
    }

    /// Forwards to `state.value(_:in:)`.
    @available(*, deprecated, message: "use context.state.value(_:in:)")
    public func state<Value>(_ key: StateKey<Value>, in scope: StateScope = .global) async throws -> Value? {
        try await state.value(key, in: scope)
    }

    /// Forwards to `state.set(_:for:in:)`.
    @available(*, deprecated, message: "use context.state.set(_:for:in:)")
    public func setState<Value>(_ value: Value, for key: StateKey<Value>, in scope: StateScope = .global) async throws {
        try await state.set(value, for: key, in: scope)
    }

    /// Forwards to `state.remove(_:in:)`.
    @available(*, deprecated, message: "use context.state.remove(_:in:)")
    public func removeState<Value>(_ key: StateKey<Value>, in scope: StateScope = .global) async throws {
        try await state.remove(key, in: scope)
    }

    /// Forwards to `jobs.schedule(named:at:repeating:payload:)`.
    @available(*, deprecated, message: "use context.jobs.schedule(_:at:repeating:payload:) with a JobKind")
    public func scheduleJob(named name: String, at date: Date, repeating rule: RepeatRule?, payload: JSONValue) async throws -> ScheduledJob {
        try await jobs.schedule(named: name, at: date, repeating: rule, payload: payload)
    }

    /// Schedules a job named `name` at `date` with a payload encoded as JSON.
    @available(*, deprecated, message: "use context.jobs.schedule(_:at:repeating:payload:) with a JobKind")
    @discardableResult
    public func schedule(
        _ name: String, at date: Date, repeating rule: RepeatRule? = nil, payload: some Encodable & Sendable = JSONValue.null
    ) async throws -> ScheduledJob {
        try await jobs.schedule(named: name, at: date, repeating: rule, payload: try JSONValue(encoding: payload))
    }

    /// Schedules a job named `name` `delay` from `now` with a payload encoded as JSON.
    @available(*, deprecated, message: "use context.jobs.schedule(_:after:repeating:payload:) with a JobKind")
    @discardableResult
    public func schedule(
        _ name: String, after delay: Duration, repeating rule: RepeatRule? = nil, payload: some Encodable & Sendable = JSONValue.null
    ) async throws -> ScheduledJob {
        let due = Timestamp(now).advanced(by: delay).date
        return try await jobs.schedule(named: name, at: due, repeating: rule, payload: try JSONValue(encoding: payload))
    }

    /// Forwards to `jobs.cancel(_:)`.
    @available(*, deprecated, message: "use context.jobs.cancel(_:)")
    public func cancelJob(_ id: ScheduledJob.ID) async throws {
        try await jobs.cancel(id)
    }

    /// Forwards to `jobs.scheduled()`.
    @available(*, deprecated, message: "use context.jobs.scheduled()")
    public func scheduledJobs() async throws -> [ScheduledJob] {
        try await jobs.scheduled()
    }

    /// Forwards to `service.friends()`.
    @available(*, deprecated, message: "use context.service.friends()")
    public func friends() async throws -> [Friend] {
        try await service.friends()
    }

    /// Forwards to `service.friendRequests()`.
    @available(*, deprecated, message: "use context.service.friendRequests()")
    public func friendRequests() async throws -> FriendRequestList {
        try await service.friendRequests()
    }

    /// Forwards to `service.acceptFriendRequest(_:)`.
    @available(*, deprecated, message: "use context.service.acceptFriendRequest(_:)")
    public func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend {
        try await service.acceptFriendRequest(id)
    }

    /// Forwards to `service.declineFriendRequest(_:)`.
    @available(*, deprecated, message: "use context.service.declineFriendRequest(_:)")
    public func declineFriendRequest(_ id: FriendRequest.ID) async throws {
        try await service.declineFriendRequest(id)
    }

    /// Forwards to `service.sendFriendRequest(to:)`.
    @available(*, deprecated, message: "use context.service.sendFriendRequest(to:)")
    public func sendFriendRequest(to target: FriendRequestBody) async throws -> FriendRequest {
        try await service.sendFriendRequest(to: target)
    }

    /// Forwards to `service.cancelFriendRequest(_:)`.
    @available(*, deprecated, message: "use context.service.cancelFriendRequest(_:)")
    public func cancelFriendRequest(_ id: FriendRequest.ID) async throws {
        try await service.cancelFriendRequest(id)
    }

    /// Forwards to `service.removeFriend(_:)`.
    @available(*, deprecated, message: "use context.service.removeFriend(_:)")
    public func removeFriend(_ userId: User.ID) async throws {
        try await service.removeFriend(userId)
    }

    /// Forwards to `service.directConversation(with:)`.
    @available(*, deprecated, message: "use context.service.directConversation(with:)")
    public func directConversation(with userId: User.ID) async throws -> Conversation {
        try await service.directConversation(with: userId)
    }

    /// Forwards to `service.conversation(_:)`.
    @available(*, deprecated, message: "use context.service.conversation(_:)")
    public func conversation(_ id: Conversation.ID) async throws -> Conversation {
        try await service.conversation(id)
    }

    /// Forwards to `service.conversations(updatedSince:)`.
    @available(*, deprecated, message: "use context.service.conversations(updatedSince:)")
    public func conversations(updatedSince: Timestamp?) async throws -> [Conversation] {
        try await service.conversations(updatedSince: updatedSince)
    }

    /// Forwards to `service.createGroup(title:memberIds:)`.
    @available(*, deprecated, message: "use context.service.createGroup(title:memberIds:)")
    public func createGroup(title: String, memberIds: [User.ID]) async throws -> Conversation {
        try await service.createGroup(title: title, memberIds: memberIds)
    }

    /// Forwards to `service.addMembers(_:to:)`.
    @available(*, deprecated, message: "use context.service.addMembers(_:to:)")
    public func addMembers(_ userIds: [User.ID], to conversationId: Conversation.ID) async throws -> Conversation {
        try await service.addMembers(userIds, to: conversationId)
    }

    /// Forwards to `service.removeMember(_:from:)`.
    @available(*, deprecated, message: "use context.service.removeMember(_:from:)")
    public func removeMember(_ userId: User.ID, from conversationId: Conversation.ID) async throws {
        try await service.removeMember(userId, from: conversationId)
    }

    /// Forwards to `service.leaveConversation(_:)`.
    @available(*, deprecated, message: "use context.service.leaveConversation(_:)")
    public func leaveConversation(_ conversationId: Conversation.ID) async throws {
        try await service.leaveConversation(conversationId)
    }

    /// Forwards to `service.setMuted(_:conversation:)`.
    @available(*, deprecated, message: "use context.service.setMuted(_:conversation:)")
    public func setMuted(_ muted: Bool, conversation conversationId: Conversation.ID) async throws {
        try await service.setMuted(muted, conversation: conversationId)
    }

    /// Forwards to `presence.lastKnown(of:)`.
    @available(*, deprecated, message: "use context.presence.lastKnown(of:)")
    public func presence(of userId: User.ID) async -> Presence? {
        await presence.lastKnown(of: userId)
    }
}
