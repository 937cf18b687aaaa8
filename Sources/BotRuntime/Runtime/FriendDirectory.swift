import ChatterBots
import Synchronization

/// The bot's friends as it last knew them, kept in its store so that friendships that began or ended while the
/// bot was offline (or down) are found by the REST refresh and reported to `onFriendAdded` / `onFriendRemoved`, and
/// profiles changed meanwhile to `onUserUpdated`.
///
/// The very first refresh of a new store only records the friends: friendships older than the bot's data are
/// not news.
final class FriendDirectory: Sendable {
    /// The state key (global scope) under which the friends are stored; bot code cannot write it.
    static let storageKey = "chatterbots.runtime.friends"

    private struct State {
        var friends: [User.ID: Friend]?
        var version = 0
    }

    private let slot: RuntimeStateSlot<[Friend]>
    private let state = Mutex(State())

    init(store: BotStore, log: SessionLog) {
        slot = RuntimeStateSlot(key: Self.storageKey, name: "the friends list", store: store, log: log)
    }

    /// Reads the stored friends (nothing yet on a new store). An unreadable list is started afresh.
    func load() async throws(BotStoreError) {
        let stored = try await slot.load()
        state.withLock { state in
            state.friends = stored.map { Dictionary($0.map { ($0.user.id, $0) }, uniquingKeysWith: { _, last in last }) }
        }
    }

    /// The number of changes made to the list so far; pass it to `reconcile` to detect a change made meanwhile.
    var version: Int { state.withLock { $0.version } }

    /// What a refresh found changed since the list was last known.
    struct Changes: Equatable {
        var added: [Friend] = []
        var removed: [User.ID] = []
        /// Friends whose profile (display name, avatar, username) differs from the one known.
        var updated: [User] = []
    }

    /// Compares the service's list, fetched when the list was at `version`, with the known friends: returns the
    /// friendships that began and ended since and the profiles that changed, and stores the list. Returns nil,
    /// changing nothing, when the list changed after `version` (a live event was applied meanwhile, so the fetched
    /// list may be older than what is known): fetch again. Without a stored list (a new store) nothing is reported.
    func reconcile(with current: [Friend], fetchedAt version: Int) async -> Changes? {
        let fresh = Dictionary(current.map { ($0.user.id, $0) }, uniquingKeysWith: { _, last in last })
        let changes = state.withLock { state -> Changes? in
            guard state.version == version else { return nil }
            defer {
                state.friends = fresh
                state.version += 1
            }
            guard let known = state.friends else { return Changes() }
            return Changes(
                added: current.filter { known[$0.user.id] == nil },
                removed: known.keys.filter { fresh[$0] == nil }.sorted { $0.rawValue < $1.rawValue },
                updated: current.compactMap { friend in
                    guard let before = known[friend.user.id], before.user != friend.user else { return nil }
                    return friend.user
                })
        }
        if changes != nil { await save() }
        return changes
    }

    /// A friendship began (`friend_request.accepted`); false when the friend was known already.
    func add(_ friend: Friend) async -> Bool {
        let isNew = state.withLock { state -> Bool in
            var friends = state.friends ?? [:]
            let isNew = friends[friend.user.id] == nil
            friends[friend.user.id] = friend
            state.friends = friends
            state.version += 1
            return isNew
        }
        await save()
        return isNew
    }

    /// A friend changed their profile (`user.updated`): the list keeps it, so the next refresh does not report it
    /// again. False when the list had this very profile already (the refresh found the change first); someone who
    /// is not a known friend changes nothing, and is news.
    func updateProfile(_ user: User) async -> Bool {
        let (isNews, changed) = state.withLock { state -> (Bool, Bool) in
            guard var friend = state.friends?[user.id] else { return (true, false) }
            guard friend.user != user else { return (false, false) }
            friend.user = user
            state.friends?[user.id] = friend
            state.version += 1
            return (true, true)
        }
        if changed { await save() }
        return isNews
    }

    /// A friendship ended (`friend.removed`); false when the user was not a known friend.
    func remove(_ userId: User.ID) async -> Bool {
        let wasFriend = state.withLock { state -> Bool in
            guard state.friends?.removeValue(forKey: userId) != nil else { return false }
            state.version += 1
            return true
        }
        if wasFriend { await save() }
        return wasFriend
    }

    /// Stores the list as it is now, unless a later change is stored or being stored already.
    private func save() async {
        let (version, friends) = state.withLock { state in
            (state.version, (state.friends ?? [:]).values.sorted { $0.user.id.rawValue < $1.user.id.rawValue })
        }
        await slot.write(friends, version: version)
    }
}
