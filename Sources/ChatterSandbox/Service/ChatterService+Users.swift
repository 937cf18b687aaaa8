import ChatterBots
import SQLite

// Profiles, friends and friend requests.
extension ChatterService {
    // MARK: Profiles

    /// `GET /me`: the caller's profile with their privacy settings.
    public func me(_ caller: SandboxCaller) async throws(ChatterErrorBody) -> CurrentUser {
        try await read { db in
            guard let user = try db.storedUser(caller.userId) else { throw ChatterErrorBody.userNotFound }
            return user.currentUser
        }
    }

    /// `PATCH /me`: changes the non-nil fields; friends get `user.updated` when the public profile changed.
    public func updateMe(_ caller: SandboxCaller, _ body: ProfileUpdateBody) async throws(ChatterErrorBody) -> SandboxOutcome<User> {
        let displayName = try body.displayName.map { name throws(ChatterErrorBody) in try validatedDisplayName(name) }
        if let privacy = body.privacy, case .unrecognized(let value) = privacy.lastSeen {
            throw .validation(field: "privacy.lastSeen", "privacy.lastSeen is \"everyone\", \"friends\" or \"nobody\", not \"\(value)\".")
        }
        return try await write { db in
            guard let before = try db.storedUser(caller.userId) else { throw ChatterErrorBody.userNotFound }
            if let displayName {
                try db.execute(sql: "UPDATE users SET display_name = ? WHERE id = ?", arguments: [displayName, caller.userId.rawValue])
            }
            if let privacy = body.privacy {
                try db.execute(
                    sql: "UPDATE users SET last_seen_privacy = ? WHERE id = ?",
                    arguments: [privacy.lastSeen.rawValue, caller.userId.rawValue])
            }
            guard let after = try db.storedUser(caller.userId) else { throw ChatterErrorBody.userNotFound }
            guard after.user != before.user else { return SandboxOutcome(value: after.user) }
            let friends = try db.friendIDs(of: caller.userId)
            let deliveries = friends.isEmpty ? [] : [SandboxDelivery(event: .userUpdated(after.user), recipients: friends)]
            return SandboxOutcome(value: after.user, deliveries: deliveries)
        }
    }

    /// `GET /users/{id}`.
    public func user(_ caller: SandboxCaller, _ id: User.ID) async throws(ChatterErrorBody) -> User {
        try await read { db in
            guard let user = try db.storedUser(id) else { throw ChatterErrorBody.userNotFound }
            return user.user
        }
    }

    /// `GET /users?username=`: the user with exactly that username (case-insensitive), if any.
    public func searchUsers(_ caller: SandboxCaller, username: String) async throws(ChatterErrorBody) -> UserList {
        guard !username.isEmpty else { throw .validation(field: "username", "Give the username to look up.") }
        return try await read { db in
            UserList(users: try db.storedUser(username: username).map { [$0.user] } ?? [])
        }
    }

    // MARK: Friends

    /// `GET /friends`, oldest friendship first.
    public func friends(_ caller: SandboxCaller) async throws(ChatterErrorBody) -> FriendList {
        try await read { db in
            FriendList(friends: try db.friendships(of: caller.userId).compactMap { friendship in
                try db.storedUser(friendship.userId).map { Friend(user: $0.user, since: friendship.since) }
            })
        }
    }

    /// `DELETE /friends/{userId}`: both users get `friend.removed` with the other's id.
    public func removeFriend(_ caller: SandboxCaller, _ userId: User.ID) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        try await write { db in
            guard try db.areFriends(caller.userId, userId) else {
                throw ChatterErrorBody.notFound("This user is not your friend.")
            }
            try db.deleteFriendship(caller.userId, userId)
            return SandboxOutcome(deliveries: [
                SandboxDelivery(event: .friendRemoved(userId: userId), recipients: [caller.userId]),
                SandboxDelivery(event: .friendRemoved(userId: caller.userId), recipients: [userId]),
            ])
        }
    }

    /// Makes two users friends at once, without requests or events (sandbox seeding). Nothing happens when
    /// they already are.
    public func makeFriends(_ a: User.ID, _ b: User.ID) async throws(ChatterErrorBody) {
        guard a != b else { throw .validation(field: "userId", "A user cannot befriend themselves.") }
        let time = now
        try await write { db in
            guard try db.storedUser(a) != nil, try db.storedUser(b) != nil else { throw ChatterErrorBody.userNotFound }
            try db.execute(
                sql: "DELETE FROM friend_requests WHERE (from_user = ?1 AND to_user = ?2) OR (from_user = ?2 AND to_user = ?1)",
                arguments: [a.rawValue, b.rawValue])
            try db.insertFriendship(a, b, at: time)
        }
    }

    // MARK: Friend requests

    /// `GET /friend-requests`: pending requests to and from the caller, oldest first.
    public func friendRequests(_ caller: SandboxCaller) async throws(ChatterErrorBody) -> FriendRequestList {
        try await read { db in
            FriendRequestList(
                incoming: try db.friendRequests(
                    sql: "SELECT id, from_user, to_user, created_at FROM friend_requests WHERE to_user = ? ORDER BY rowid",
                    userId: caller.userId),
                outgoing: try db.friendRequests(
                    sql: "SELECT id, from_user, to_user, created_at FROM friend_requests WHERE from_user = ? ORDER BY rowid",
                    userId: caller.userId))
        }
    }

    /// `POST /friend-requests`: the recipient gets `friend_request.received` (or a push).
    public func sendFriendRequest(_ caller: SandboxCaller, _ body: FriendRequestBody) async throws(ChatterErrorBody) -> SandboxOutcome<FriendRequest> {
        let time = now
        let requestId: FriendRequest.ID = identifiers.make(at: time)
        return try await write { db in
            let recipient: StoredUser?
            let field: String
            switch body {
            case .userId(let id):
                recipient = try db.storedUser(id)
                field = "userId"
            case .username(let username):
                recipient = try db.storedUser(username: username)
                field = "username"
            }
            guard let recipient else { throw ChatterErrorBody.userNotFound }
            guard recipient.id != caller.userId else {
                throw ChatterErrorBody.validation(field: field, "You cannot send a friend request to yourself.")
            }
            guard !(try db.areFriends(caller.userId, recipient.id)) else {
                throw ChatterErrorBody(code: .alreadyFriends, message: "You are already friends with \(recipient.username).")
            }
            guard !(try db.pendingRequestExists(between: caller.userId, and: recipient.id)) else {
                throw ChatterErrorBody(
                    code: .requestExists, message: "A friend request between you and \(recipient.username) is already pending.")
            }
            try db.execute(
                sql: "INSERT INTO friend_requests (id, from_user, to_user, created_at) VALUES (?, ?, ?, ?)",
                arguments: [requestId.rawValue, caller.userId.rawValue, recipient.id.rawValue, time.millisecondsSince1970])
            guard let request = try db.friendRequest(requestId) else { throw ChatterErrorBody.friendRequestNotFound }
            return SandboxOutcome(value: request, deliveries: [
                SandboxDelivery(
                    event: .friendRequestReceived(request), recipients: [recipient.id],
                    pushTrigger: .friendRequestReceived(request))
            ])
        }
    }

    /// `POST /friend-requests/{id}/accept` (recipient only): both users get `friend_request.accepted`, each with
    /// the OTHER user as `friend`; the sender gets a push when offline.
    public func acceptFriendRequest(_ caller: SandboxCaller, _ id: FriendRequest.ID) async throws(ChatterErrorBody) -> SandboxOutcome<FriendRequestAccepted> {
        let time = now
        return try await write { db in
            let request = try self.visibleRequest(db, id, caller: caller)
            guard request.toUser.id == caller.userId else {
                throw ChatterErrorBody.forbidden("Only the recipient can accept a friend request.")
            }
            try db.execute(sql: "DELETE FROM friend_requests WHERE id = ?", arguments: [id.rawValue])
            let since = try db.insertFriendship(request.fromUser.id, request.toUser.id, at: time)
            // Fresh profiles: either user may have changed their display name since the request.
            let sender = try db.storedUser(request.fromUser.id)?.user ?? request.fromUser
            let accepter = try db.storedUser(request.toUser.id)?.user ?? request.toUser
            let forAccepter = FriendRequestAccepted(requestId: id, friend: Friend(user: sender, since: since))
            let forSender = FriendRequestAccepted(requestId: id, friend: Friend(user: accepter, since: since))
            return SandboxOutcome(value: forAccepter, deliveries: [
                SandboxDelivery(
                    event: .friendRequestAccepted(forSender), recipients: [sender.id],
                    pushTrigger: .friendRequestAccepted(requestId: id, sender: sender, accepter: accepter)),
                SandboxDelivery(event: .friendRequestAccepted(forAccepter), recipients: [accepter.id]),
            ])
        }
    }

    /// `POST /friend-requests/{id}/decline` (recipient only): the sender is not told.
    public func declineFriendRequest(_ caller: SandboxCaller, _ id: FriendRequest.ID) async throws(ChatterErrorBody) {
        try await write { db in
            let request = try self.visibleRequest(db, id, caller: caller)
            guard request.toUser.id == caller.userId else {
                throw ChatterErrorBody.forbidden("Only the recipient can decline a friend request; the sender cancels it.")
            }
            try db.execute(sql: "DELETE FROM friend_requests WHERE id = ?", arguments: [id.rawValue])
        }
    }

    /// `DELETE /friend-requests/{id}` (sender only): the recipient gets `friend_request.cancelled`.
    public func cancelFriendRequest(_ caller: SandboxCaller, _ id: FriendRequest.ID) async throws(ChatterErrorBody) -> SandboxOutcome<Void> {
        try await write { db in
            let request = try self.visibleRequest(db, id, caller: caller)
            guard request.fromUser.id == caller.userId else {
                throw ChatterErrorBody.forbidden("Only the sender can cancel a friend request; the recipient declines it.")
            }
            try db.execute(sql: "DELETE FROM friend_requests WHERE id = ?", arguments: [id.rawValue])
            return SandboxOutcome(deliveries: [
                SandboxDelivery(event: .friendRequestCancelled(requestId: id), recipients: [request.toUser.id])
            ])
        }
    }

    /// The request if the caller sent or received it; NOT_FOUND otherwise (others' requests are invisible).
    private func visibleRequest(_ db: Database, _ id: FriendRequest.ID, caller: SandboxCaller) throws -> FriendRequest {
        guard let request = try db.friendRequest(id), request.fromUser.id == caller.userId || request.toUser.id == caller.userId
        else { throw ChatterErrorBody.friendRequestNotFound }
        return request
    }
}
