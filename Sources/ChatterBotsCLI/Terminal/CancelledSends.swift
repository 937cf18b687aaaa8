import BotRuntime
import ChatterBots
import Synchronization

/// The messages the person cancelled (`/cancel`), shared by the shell, which notes them, and the client's sender,
/// which then neither sends nor resends them. Kept for the run, since a reconnect may have queued a message more
/// than once; it grows only with what the person cancels.
final class CancelledSends: Sendable {
    private let ids = Mutex<Set<ClientMessageID>>([])

    func insert(_ id: ClientMessageID) {
        ids.withLock { _ = $0.insert(id) }
    }

    func contains(_ id: ClientMessageID) -> Bool {
        ids.withLock { $0.contains(id) }
    }
}
