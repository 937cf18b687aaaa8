import Foundation

/// When `onReady` runs after a connect: once the sync is done and the connection's `presence.snapshot` is in, as
/// `Bot.onReady` promises, but never later than ``snapshotWait`` after `session.ready` for the snapshot (the
/// service sends it right after `session.ready`; a lost one must not hold the bot's `onReady` back for good).
/// A plain value: the session feeds it its connection's events and carries out the actions.
struct ReadyGate: Equatable, Sendable {
    /// How long after `session.ready` the snapshot is waited for.
    static let snapshotWait: Duration = .seconds(5)

    enum Action: Equatable, Sendable {
        /// Wake the session at this time for `snapshotWaitEnded` of the generation.
        case scheduleSnapshotDeadline(Date, generation: UInt64)
        /// The snapshot deadline is not needed any more.
        case cancelSnapshotDeadline
        /// Run `onReady` for the connection of this generation; `snapshotMissing` when its wait ran out.
        case announceReady(generation: UInt64, snapshotMissing: Bool)
    }

    private var generation: UInt64?
    private var isSynchronized = false
    private var hasSnapshot = false
    private var snapshotWaitIsOver = false
    private var isAnnounced = false

    /// The connection of `generation` is open (`session.ready` came at `now`): a new wait begins.
    mutating func opened(_ generation: UInt64, now: Date) -> [Action] {
        self = ReadyGate()
        self.generation = generation
        return [.scheduleSnapshotDeadline(now.addingTimeInterval(Self.snapshotWait.timeInterval), generation: generation)]
    }

    /// The connection's `presence.snapshot` arrived (its `onPresenceSnapshot` is queued).
    mutating func snapshotReceived(_ generation: UInt64) -> [Action] {
        guard generation == self.generation, !hasSnapshot else { return [] }
        hasSnapshot = true
        return [.cancelSnapshotDeadline] + announceIfReady()
    }

    /// The snapshot's wait ran out.
    mutating func snapshotWaitEnded(_ generation: UInt64) -> [Action] {
        guard generation == self.generation, !hasSnapshot, !snapshotWaitIsOver else { return [] }
        snapshotWaitIsOver = true
        return announceIfReady()
    }

    /// The sync of the connection finished.
    mutating func synchronized(_ generation: UInt64) -> [Action] {
        guard generation == self.generation, !isSynchronized else { return [] }
        isSynchronized = true
        return announceIfReady()
    }

    private mutating func announceIfReady() -> [Action] {
        guard let generation, isSynchronized, hasSnapshot || snapshotWaitIsOver, !isAnnounced else { return [] }
        isAnnounced = true
        return [.announceReady(generation: generation, snapshotMissing: !hasSnapshot)]
    }
}
