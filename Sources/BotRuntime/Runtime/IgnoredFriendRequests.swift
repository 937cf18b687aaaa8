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
        var savedVersion = 0
        var isSaving = false
    }

    private let store: BotStore
    private let log: SessionLog
    private let state = Mutex(State())

    init(store: BotStore, log: SessionLog) {
        self.store = store
        self.log = log
    }

    /// Reads the stored ids (none yet on a new store). An unreadable list is started afresh: the bot is then
    /// asked once more about the requests it ignored.
    func load() async throws(BotStoreError) {
        let stored: [String]?
        do {
            stored = try await store.value([String].self, forKey: Self.storageKey, in: .global)
        } catch {
            guard case .undecodableValue = error else { throw error }
            log.warning("the stored ignored friend requests cannot be read (\(error)); the bot is asked about them again")
            stored = nil
        }
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
        let changed = state.withLock { state -> Bool in
            guard body(&state.ids) else { return false }
            state.version += 1
            return true
        }
        if changed { await save() }
    }

    /// Writes the latest set; concurrent changes are written by whichever call saves last, never an older set.
    private func save() async {
        while true {
            let snapshot = state.withLock { state -> (Int, [String])? in
                guard !state.isSaving, state.version != state.savedVersion else { return nil }
                state.isSaving = true
                return (state.version, state.ids.map(\.rawValue).sorted())
            }
            guard let (version, ids) = snapshot else { return }
            do {
                try await store.setValue(ids, forKey: Self.storageKey, in: .global)
            } catch {
                log.warning("could not store the ignored friend requests: \(error)")
            }
            state.withLock { state in
                state.isSaving = false
                state.savedVersion = version
            }
        }
    }
}
