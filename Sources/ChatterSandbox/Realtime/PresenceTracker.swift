import ChatterBots
import Foundation

/// Who is online, by the presence rules of the realtime contract, as a pure value with time as input.
///
/// A user is online while at least one of their devices has an open socket. When the last socket closes the user
/// stays online for `gracePeriod`; a socket opened within it absorbs the disconnect (no event at all), otherwise
/// `expire(at:)` reports the user offline with `lastSeenAt` = when that last socket closed.
public struct PresenceTracker: Sendable {
    /// A user who went offline: the moment their last socket closed.
    public struct WentOffline: Sendable, Hashable {
        public var userId: User.ID
        public var lastSeenAt: Date
    }

    private struct PendingOffline: Sendable, Hashable {
        var closedAt: Date
        var deadline: Date
    }

    /// How long a user stays online after their last socket closed.
    public let gracePeriod: Duration
    private var openSockets: [User.ID: Int] = [:]
    private var pending: [User.ID: PendingOffline] = [:]

    public init(gracePeriod: Duration = .seconds(10)) {
        self.gracePeriod = gracePeriod
    }

    /// Whether the user counts as online (an open socket, or within the grace period after the last one).
    public func isOnline(_ userId: User.ID) -> Bool {
        openSockets[userId, default: 0] > 0 || pending[userId] != nil
    }

    /// The earliest moment a pending offline is due; nil when none is pending.
    public var nextDeadline: Date? { pending.values.map(\.deadline).min() }

    /// A socket of `userId` opened. Returns true when the user came online (announce it); false when they were
    /// online already, including a reconnect within the grace period.
    public mutating func socketOpened(by userId: User.ID) -> Bool {
        let wasOnline = isOnline(userId)
        pending[userId] = nil
        openSockets[userId, default: 0] += 1
        return !wasOnline
    }

    /// A socket of `userId` closed at `now`. Returns the deadline of the offline announcement when it was the
    /// user's last socket (arm a timer for it), nil otherwise.
    public mutating func socketClosed(by userId: User.ID, at now: Date) -> Date? {
        guard let count = openSockets[userId], count > 0 else { return nil }
        if count > 1 {
            openSockets[userId] = count - 1
            return nil
        }
        openSockets[userId] = nil
        let deadline = now.addingTimeInterval(gracePeriod.timeInterval)
        pending[userId] = PendingOffline(closedAt: now, deadline: deadline)
        return deadline
    }

    /// The users whose grace period ended at or before `now`, in the order they went offline; they are offline
    /// from now on.
    public mutating func expire(at now: Date) -> [WentOffline] {
        let due = pending.filter { $0.value.deadline <= now }
        for userId in due.keys { pending[userId] = nil }
        return due.map { WentOffline(userId: $0.key, lastSeenAt: $0.value.closedAt) }
            .sorted { ($0.lastSeenAt, $0.userId) < ($1.lastSeenAt, $1.userId) }
    }
}
