import ChatterBots
import SQLite

// Conversations, members, roles and mute.
extension ChatterService {
    /// `GET /conversations?updatedSince=`: the caller's conversations changed after `updatedSince`, oldest
    /// `updatedAt` first, at most `conversationPageSize`; page on with the last `updatedAt`.
    public func conversations(_ caller: SandboxCaller, updatedSince: Timestamp?) async throws(ChatterErrorBody) -> ConversationList {
        let since = updatedSince?.millisecondsSince1970 ?? Int64.min
        let limit = configuration.conversationPageSize
        return try await read { db in
            let stored = try db.fetchAll(
                StoredConversation.self,
                sql: """
                    SELECT c.id, c.kind, c.title, c.avatar_url, c.last_seq, c.created_at, c.updated_at
                    FROM conversations c JOIN members m ON m.conversation_id = c.id AND m.user_id = ?
                    WHERE c.updated_at > ? ORDER BY c.updated_at, c.id LIMIT ?
                    """,
                arguments: [caller.userId.rawValue, since, limit])
            return ConversationList(conversations: try stored.map { try db.conversation($0, viewer: caller.userId) })
        }
    }

    /// `POST /conversations`: a direct conversation with a friend (the existing one when there is one) or a
    /// group of friends. The other members get `conversation.created`.
    public func createConversation(_ caller: SandboxCaller, _ body: NewConversationBody) async throws(ChatterErrorBody) -> SandboxOutcome<SandboxCreation<Conversation>> {
        let time = now
        let conversationId: Conversation.ID = identifiers.make(at: time)
        switch body {
        case .direct(let userId):
            guard userId != caller.userId else {
                throw .validation(field: "userId", "A direct conversation needs another user than yourself.")
            }
            return try await write { db in
                guard try db.storedUser(userId) != nil else { throw ChatterErrorBody.userNotFound }
                guard try db.areFriends(caller.userId, userId) else {
                    throw ChatterErrorBody(code: .notFriends, message: "You can only start a conversation with a friend.")
                }
                let (low, high) = Database.orderedPair(caller.userId, userId)
                let pair = "\(low.rawValue):\(high.rawValue)"
                if let existing = try db.fetchOne(String.self, sql: "SELECT id FROM conversations WHERE direct_pair = ?", arguments: [pair]),
                    let conversation = try db.conversation(Conversation.ID(existing), viewer: caller.userId)
                {
                    return SandboxOutcome(value: SandboxCreation(value: conversation, isNew: false))
                }
                let updatedAt = try db.nextConversationUpdateTime(time, mayTie: self.configuration.conversationUpdateTimesMayTie)
                try db.execute(
                    sql: "INSERT INTO conversations (id, kind, direct_pair, created_at, updated_at) VALUES (?, 'direct', ?, ?, ?)",
                    arguments: [conversationId.rawValue, pair, time.millisecondsSince1970, updatedAt.millisecondsSince1970])
                try db.insertMember(caller.userId, into: conversationId, role: .member, at: time)
                try db.insertMember(userId, into: conversationId, role: .member, at: time)
                return try self.created(db, conversationId, caller: caller, newMembers: [userId])
            }
        case .group(let title, let memberIds):
            let title = try validatedTitle(title)
            var others: [User.ID] = []
            for id in memberIds where id != caller.userId && !others.contains(id) { others.append(id) }
            let invited = others
            return try await write { db in
                try self.requireFriends(db, invited, of: caller.userId, field: "memberIds")
                let updatedAt = try db.nextConversationUpdateTime(time, mayTie: self.configuration.conversationUpdateTimesMayTie)
                try db.execute(
                    sql: "INSERT INTO conversations (id, kind, title, created_at, updated_at) VALUES (?, 'group', ?, ?, ?)",
                    arguments: [conversationId.rawValue, title, time.millisecondsSince1970, updatedAt.millisecondsSince1970])
                try db.insertMember(caller.userId, into: conversationId, role: .owner, at: time)
                for id in invited { try db.insertMember(id, into: conversationId, role: .member, at: time) }
                return try self.created(db, conversationId, caller: caller, newMembers: invited)
            }
        }
    }

    /// `GET /conversations/{id}` (members only).
    public func conversation(_ caller: SandboxCaller, _ id: Conversation.ID) async throws(ChatterErrorBody) -> Conversation {
        try await read { db in
            _ = try self.requireMember(db, caller.userId, of: id)
            guard let conversation = try db.conversation(id, viewer: caller.userId) else { throw ChatterErrorBody.conversationNotFound }
            return conversation
        }
    }

    /// `PATCH /conversations/{id}` (group owner or admin): every member gets `conversation.updated`.
    public func updateConversation(_ caller: SandboxCaller, _ id: Conversation.ID, _ body: ConversationUpdateBody) async throws(ChatterErrorBody) -> SandboxOutcome<Conversation> {
        let title = try body.title.map { title throws(ChatterErrorBody) in try validatedTitle(title) }
        if let avatarUrl = body.avatarUrl, avatarUrl.count > 2048 || URL(string: avatarUrl) == nil {
            throw .validation(field: "avatarUrl", "avatarUrl must be a URL of at most 2,048 characters.")
        }
        let time = now
        return try await write { db in
            let stored = try self.requireGroupManager(db, caller, id, action: "change the group")
            guard title != nil || body.avatarUrl != nil else {
                return SandboxOutcome(value: try db.conversation(stored, viewer: caller.userId))
            }
            try db.execute(
                sql: "UPDATE conversations SET title = coalesce(?, title), avatar_url = coalesce(?, avatar_url) WHERE id = ?",
                arguments: [title, body.avatarUrl, id.rawValue])
            try db.touchConversation(id, now: time, mayTie: self.configuration.conversationUpdateTimesMayTie)
            return try self.updated(db, id, caller: caller)
        }
    }

    /// `POST /conversations/{id}/members` (group owner or admin; friends of the caller only): the new members
    /// get `conversation.created`, the others `conversation.updated`. Users already in the group are skipped.
    public func addMembers(_ caller: SandboxCaller, _ id: Conversation.ID, _ body: MembersBody) async throws(ChatterErrorBody) -> SandboxOutcome<Conversation> {
        guard !body.userIds.isEmpty else { throw .validation(field: "userIds", "Name at least one user to add.") }
        let time = now
        return try await write { db in
            let stored = try self.requireGroupManager(db, caller, id, action: "add members")
            let current = Set(try db.members(of: id).map(\.userId))
            var added: [User.ID] = []
            for userId in body.userIds where !current.contains(userId) && !added.contains(userId) { added.append(userId) }
            try self.requireFriends(db, added, of: caller.userId, field: "userIds")
            guard !added.isEmpty else { return SandboxOutcome(value: try db.conversation(stored, viewer: caller.userId)) }
            for userId in added { try db.insertMember(userId, into: id, role: .member, at: time) }
            try db.touchConversation(id, now: time, mayTie: self.configuration.conversationUpdateTimesMayTie)
            guard let conversation = try db.conversation(id, viewer: caller.userId) else { throw ChatterErrorBody.conversationNotFound }
            var deliveries: [SandboxDelivery] = []
            for member in conversation.members {
                guard let view = try db.conversation(id, viewer: member.userId) else { continue }
                let event: ServerEvent = added.contains(member.userId) ? .conversationCreated(view) : .conversationUpdated(view)
                deliveries.append(SandboxDelivery(event: event, recipients: [member.userId]))
            }
            return SandboxOutcome(value: conversation, deliveries: deliveries)
        }
    }

    /// `DELETE /conversations/{id}/members/{userId}`: an owner or admin removes a member, or a member leaves.
    /// The removed user gets `conversation.removed`, the rest `conversation.updated`. An owner who leaves hands
    /// ownership to the longest-standing admin, else the longest-standing member.
    public func removeMember(_ caller: SandboxCaller, _ id: Conversation.ID, _ userId: User.ID) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        let time = now
        return try await write { db in
            let me = try self.requireMember(db, caller.userId, of: id)
            guard let stored = try db.storedConversation(id) else { throw ChatterErrorBody.conversationNotFound }
            guard stored.kind == .group else {
                throw ChatterErrorBody.forbidden("Members of a direct conversation cannot be removed, and nobody can leave it.")
            }
            guard let target = try db.member(userId, of: id) else {
                throw ChatterErrorBody.notFound("This user is not a member of the conversation.")
            }
            if userId != caller.userId {
                guard me.canManage else { throw ChatterErrorBody.forbidden("Only the group's owner or an admin can remove members.") }
                guard me.role == .owner || target.role == .member else {
                    throw ChatterErrorBody.forbidden("Only the group's owner can remove an admin or the owner.")
                }
            }
            try db.execute(
                sql: "DELETE FROM members WHERE conversation_id = ? AND user_id = ?", arguments: [id.rawValue, userId.rawValue])
            let remaining = try db.members(of: id)
            if target.role == .owner, let heir = remaining.first(where: { $0.role == .admin }) ?? remaining.first {
                try db.execute(
                    sql: "UPDATE members SET role = 'owner' WHERE conversation_id = ? AND user_id = ?",
                    arguments: [id.rawValue, heir.userId.rawValue])
            }
            try db.touchConversation(id, now: time, mayTie: self.configuration.conversationUpdateTimesMayTie)
            var deliveries = [SandboxDelivery(event: .conversationRemoved(conversationId: id), recipients: [userId])]
            deliveries += try self.updatedDeliveries(db, id)
            return SandboxOutcome(deliveries: deliveries)
        }
    }

    /// Gives a member another role (group owner only); making someone `owner` hands over ownership and makes
    /// the caller an admin. Every member gets `conversation.updated`. (No REST endpoint: for the sandbox's admin.)
    public func setRole(_ caller: SandboxCaller, _ id: Conversation.ID, of userId: User.ID, to role: Member.Role) async throws(ChatterErrorBody) -> SandboxOutcome<Conversation> {
        if case .unrecognized(let value) = role {
            throw .validation(field: "role", "A role is \"owner\", \"admin\" or \"member\", not \"\(value)\".")
        }
        let time = now
        return try await write { db in
            let me = try self.requireMember(db, caller.userId, of: id)
            guard let stored = try db.storedConversation(id), stored.kind == .group else {
                throw ChatterErrorBody.forbidden("Direct conversations have no roles.")
            }
            guard me.role == .owner else { throw ChatterErrorBody.forbidden("Only the group's owner can change roles.") }
            guard try db.member(userId, of: id) != nil else {
                throw ChatterErrorBody.notFound("This user is not a member of the conversation.")
            }
            guard userId != caller.userId else { return SandboxOutcome(value: try db.conversation(stored, viewer: caller.userId)) }
            if role == .owner {
                try db.execute(
                    sql: "UPDATE members SET role = 'admin' WHERE conversation_id = ? AND user_id = ?",
                    arguments: [id.rawValue, caller.userId.rawValue])
            }
            try db.execute(
                sql: "UPDATE members SET role = ? WHERE conversation_id = ? AND user_id = ?",
                arguments: [role.rawValue, id.rawValue, userId.rawValue])
            try db.touchConversation(id, now: time, mayTie: self.configuration.conversationUpdateTimesMayTie)
            return try self.updated(db, id, caller: caller)
        }
    }

    /// `PUT /conversations/{id}/settings`: the caller's own mute setting (muted conversations push nothing).
    public func setMuted(_ caller: SandboxCaller, _ id: Conversation.ID, muted: Bool) async throws(ChatterErrorBody) {
        try await write { db in
            _ = try self.requireMember(db, caller.userId, of: id)
            try db.execute(
                sql: "UPDATE members SET muted = ? WHERE conversation_id = ? AND user_id = ?",
                arguments: [muted, id.rawValue, caller.userId.rawValue])
        }
    }

    // MARK: Rules shared by conversation operations

    /// The caller's membership; NOT_FOUND when the conversation does not exist or the caller is not in it, so
    /// outsiders cannot even learn that it exists.
    func requireMember(_ db: Database, _ userId: User.ID, of id: Conversation.ID) throws -> StoredMember {
        guard let member = try db.member(userId, of: id) else { throw ChatterErrorBody.conversationNotFound }
        return member
    }

    private func requireGroupManager(_ db: Database, _ caller: SandboxCaller, _ id: Conversation.ID, action: String) throws -> StoredConversation {
        let me = try requireMember(db, caller.userId, of: id)
        guard let stored = try db.storedConversation(id) else { throw ChatterErrorBody.conversationNotFound }
        guard stored.kind == .group else { throw ChatterErrorBody.forbidden("You cannot \(action) of a direct conversation.") }
        guard me.canManage else { throw ChatterErrorBody.forbidden("Only the group's owner or an admin can \(action).") }
        return stored
    }

    private func requireFriends(_ db: Database, _ userIds: [User.ID], of userId: User.ID, field: String) throws {
        for other in userIds {
            guard try db.storedUser(other) != nil else {
                throw ChatterErrorBody(code: .notFound, message: "No such user: \(other).", details: ["field": .string(field)])
            }
            guard try db.areFriends(userId, other) else {
                throw ChatterErrorBody(
                    code: .notFriends, message: "You can only add your friends to a group.",
                    details: ["field": .string(field), "userId": .string(other.rawValue)])
            }
        }
    }

    private func validatedTitle(_ title: String) throws(ChatterErrorBody) -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(trimmed.count) else {
            throw .validation(field: "title", "A group title has 1 to 100 characters, not only spaces.")
        }
        return trimmed
    }

    private func created(_ db: Database, _ id: Conversation.ID, caller: SandboxCaller, newMembers: [User.ID]) throws -> SandboxOutcome<SandboxCreation<Conversation>> {
        guard let conversation = try db.conversation(id, viewer: caller.userId) else { throw ChatterErrorBody.conversationNotFound }
        var deliveries: [SandboxDelivery] = []
        for member in newMembers {
            guard let view = try db.conversation(id, viewer: member) else { continue }
            deliveries.append(SandboxDelivery(event: .conversationCreated(view), recipients: [member]))
        }
        return SandboxOutcome(value: SandboxCreation(value: conversation, isNew: true), deliveries: deliveries)
    }

    private func updated(_ db: Database, _ id: Conversation.ID, caller: SandboxCaller) throws -> SandboxOutcome<Conversation> {
        guard let conversation = try db.conversation(id, viewer: caller.userId) else { throw ChatterErrorBody.conversationNotFound }
        return SandboxOutcome(value: conversation, deliveries: try updatedDeliveries(db, id))
    }

    /// `conversation.updated` for every member, each with their own view (`muted` is per member).
    private func updatedDeliveries(_ db: Database, _ id: Conversation.ID) throws -> [SandboxDelivery] {
        try db.members(of: id).compactMap { member in
            try db.conversation(id, viewer: member.userId).map {
                SandboxDelivery(event: .conversationUpdated($0), recipients: [member.userId])
            }
        }
    }
}
