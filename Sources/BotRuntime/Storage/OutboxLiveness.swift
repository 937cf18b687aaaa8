import Synchronization

/// Whether the bot's outbox is sending on a live connection now, as its sender last said.
///
/// Entries committed while it is live go out at once, so the commit records their first send attempt with them
/// (their enqueue time: never later than the real first send, so the resend window only errs short) and sending
/// them costs no extra write; entries committed while it is not get their first send recorded when they go out.
final class OutboxLiveness: Sendable {
    private let live = Atomic<Bool>(false)

    var isLive: Bool { live.load(ordering: .acquiring) }

    func set(_ isLive: Bool) {
        live.store(isLive, ordering: .releasing)
    }
}
