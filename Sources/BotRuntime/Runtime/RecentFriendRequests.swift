import ChatterBots
import Synchronization

/// Friend requests a session has dealt with, in memory, so that one that reaches the bot twice reaches its handler
/// once: a live event and the REST refresh can both bring a pending request, and the service may repeat any event.
/// Bounded to ``capacity`` requests, oldest forgotten first. The runner keeps one for requests decided and one for
/// requests cancelled.
final class RecentFriendRequests: Sendable {
    /// How many requests are remembered.
    static let capacity = 1_024

    private struct State {
        var ids: Set<FriendRequest.ID> = []
        var order: [FriendRequest.ID] = []
    }

    private let state = Mutex(State())

    /// Remembers `id`; false when it was remembered already.
    @discardableResult
    func insert(_ id: FriendRequest.ID) -> Bool {
        state.withLock { state in
            guard state.ids.insert(id).inserted else { return false }
            state.order.append(id)
            if state.order.count > Self.capacity {
                state.ids.remove(state.order.removeFirst())
            }
            return true
        }
    }

    func contains(_ id: FriendRequest.ID) -> Bool {
        state.withLock { $0.ids.contains(id) }
    }
}
