import ChatterBots
import Synchronization

/// The last known presence of each friend: the snapshot after every connect, then the changes.
final class PresenceDirectory: Sendable {
    private let presences = Mutex<[User.ID: Presence]>([:])

    func replace(with snapshot: [Presence]) {
        let fresh = Dictionary(snapshot.map { ($0.userId, $0) }, uniquingKeysWith: { _, last in last })
        presences.withLock { $0 = fresh }
    }

    func update(_ presence: Presence) {
        presences.withLock { $0[presence.userId] = presence }
    }

    func remove(_ userId: User.ID) {
        presences.withLock { $0[userId] = nil }
    }

    func presence(of userId: User.ID) -> Presence? {
        presences.withLock { $0[userId] }
    }
}
