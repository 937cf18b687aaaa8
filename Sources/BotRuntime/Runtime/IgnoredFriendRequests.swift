import ChatterBots
import Synchronization

/// The friend requests the bot chose to leave pending, kept in its store so that the bot is asked about each
/// request once, not again after every reconnect or restart (the REST refresh finds them pending each time).
///
/// A request leaves the list when it is accepted or cancelled, and when the refresh no longer finds it pending.
/// A new request from the same person has a new id, so the bot is asked about it.
final class IgnoredFriendRequests: Sendable {
    /// The state key (global scope) under which the ids are stored, in the runtime's own namespace.
    static let storageKey = "chatterbots.runtime.ignoredFriendRequests"

    private struct State {
        var ids: Set<FriendRequest.ID> = []
        var version = 0
    }

    private let slot: RuntimeStateSlot<[String]>
    private let state = Mutex(State())

    init(store: BotStore, log: SessionLog) {
        slot = RuntimeStateSlot(key: Self.storageKey, name: "the ignored friend requests", store: store, log: log)
    }

    /// Reads the stored ids (none yet on a new store). An unreadable list is started afresh: the bot is then
    /// asked once more about the requests it ignored.
    func load() async throws(BotStoreError) {
        let stored = try await slot.load()
        state.withLock { $0.ids = Set((stored ?? []).map { FriendRequest.ID($0) }) }
    }

    func contains(_ id: FriendRequest.ID) -> Bool {
        state.withLock { $0.ids.contains(id) }
    }

    /// The bot left `id` pending: it is not asked about it again.
    func remember(_ id: FriendRequest.ID) async {
        await change { $0.insert(id).inserted }
    }

    /// `id` was answered or withdrawn: nothing to remember any more.
    func forget(_ id: FriendRequest.ID) async {
        await change { $0.remove(id) != nil }
    }

    /// Keeps only the ids still among `pending` (the incoming requests the service lists now).
    func retain(pending: [FriendRequest.ID]) async {
        let pending = Set(pending)
        await change { ids in
            let kept = ids.intersection(pending)
            defer { ids = kept }
            return kept.count != ids.count
        }
    }

    private func change(_ body: (inout Set<FriendRequest.ID>) -> Bool) async {
        let snapshot = state.withLock { state -> (Int, [String])? in
            guard body(&state.ids) else { return nil }
            state.version += 1
            return (state.version, state.ids.map(\.rawValue).sorted())
        }
        if let (version, ids) = snapshot { await slot.write(ids, version: version) }
    }
}
