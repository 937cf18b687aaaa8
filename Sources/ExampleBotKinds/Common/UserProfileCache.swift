import ChatterBots

/// The display names and usernames of the people a bot talks to, cached in bot state.
///
/// `BotContext` can look a person up only through the friends list, one request for all friends, so a busy
/// conversation must not cost one per message: a profile found is kept for `maximumAge` (a day; display names
/// rarely change, and `remember(_:)` refreshes it whenever an event carries the user), and a person who is no
/// friend (a stranger in a group) is remembered as unknown for `unknownAge` (an hour) before asking again.
struct UserProfileCache: Sendable {
    struct Entry: Codable, Sendable {
        var user: User?
        var checkedAt: Date
    }

    static let key = StateKey<Entry>("profile")

    var maximumAge: TimeInterval = 86_400
    var unknownAge: TimeInterval = 3_600

    /// The profile of `userId`, or nil when the bot cannot see it. A failed lookup is logged and gives nil
    /// (a reply with a fallback name beats no reply).
    func user(_ userId: User.ID, context: any BotContext) async throws -> User? {
        let now = context.now
        if let entry = try? await context.state.value(UserProfileCache.key, in: .user(userId)) {
            let age = now.timeIntervalSince(entry.checkedAt)
            if age >= 0, age < (entry.user == nil ? unknownAge : maximumAge) { return entry.user }
        }
        let friends: [Friend]
        do {
            friends = try await context.service.friends()
        } catch {
            context.logger.warning("could not look up a profile", ["user": userId.rawValue, "error": "\(error)"])
            return nil
        }
        let user = friends.first { $0.user.id == userId }?.user
        try await context.state.set(Entry(user: user, checkedAt: now), for: UserProfileCache.key, in: .user(userId))
        return user
    }

    /// Stores a profile an event carried (a new friend, a friend request).
    func remember(_ user: User, context: any BotContext) async throws {
        try await context.state.set(Entry(user: user, checkedAt: context.now), for: UserProfileCache.key, in: .user(user.id))
    }
}
