import Synchronization

/// Whether the bot's outbox sends what is committed at once, as its sender last said: a live connection, and no
/// pacing or rate-limit pause holding sends back.
///
/// Entries committed while it is live normally go out within milliseconds, so the commit records their first send
/// attempt with them (their enqueue time: never later than the real first send) and sending them costs no extra
/// write; entries committed while it is not get their first send recorded when they go out. So the resend window
/// only errs short: an entry stamped at its commit whose connection drops before it goes out, and that then stays
/// unsent for the whole window, is failed as expired although the service never saw it (never duplicated).
final class OutboxLiveness: Sendable {
    private let live = Atomic<Bool>(false)

    var isLive: Bool { live.load(ordering: .acquiring) }

    func set(_ isLive: Bool) {
        live.store(isLive, ordering: .releasing)
    }
}
