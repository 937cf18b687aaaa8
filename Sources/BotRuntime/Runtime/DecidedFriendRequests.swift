import ChatterBots
import Synchronization

/// The friend requests whose decision this session carried out, in memory, so that a request that reaches the bot
/// twice is put to `onFriendRequest` once: a live `friend_request.received` and the REST refresh can both bring a
/// pending request, and the service may repeat an event. Bounded to ``capacity`` requests, oldest forgotten first.
///
/// A request is recorded only once its decision was carried out (accepted, declined, left pending, or found no longer
/// pending): one whose answer failed is asked about again when it comes back.
final class DecidedFriendRequests: Sendable {
    /// How many requests are remembered.
    static let capacity = 1_024

    private struct State {
        var ids: Set<FriendRequest.ID> = []
        var order: [FriendRequest.ID] = []
    }

    private let state = Mutex(State())

    /// Records that the decision about `id` was carried out.
    func insert(_ id: FriendRequest.ID) {
        state.withLock { state in
            guard state.ids.insert(id).inserted else { return }
            state.order.append(id)
            if state.order.count > Self.capacity {
                state.ids.remove(state.order.removeFirst())
            }
        }
    }

    func contains(_ id: FriendRequest.ID) -> Bool {
        state.withLock { $0.ids.contains(id) }
    }
}
