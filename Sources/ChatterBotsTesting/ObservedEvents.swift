import ChatterBots
import Synchronization

/// What a test user's socket brought, sorted by `UserView` into one inbox per kind of observation. The socket's
/// reader records each frame in arrival order; tests take from the inboxes, so nothing that arrived before a test
/// asks for it is lost.
final class ObservedEvents: Sendable {
    /// `message.new`, each message once.
    let messages = Inbox<Message>()
    /// `message.updated`, each change once, with the version seen before it.
    let changes = Inbox<UserView.Change>()
    /// `typing` of the other members.
    let typing = Inbox<TypingIndicator>()
    /// `receipt.updated`: watermarks only move forward, so every update stays for later waits (`first(where:)`).
    let receipts = Inbox<ReceiptUpdate>()
    /// The service's `error`s for frames sent without an `id` (receipts, typing).
    let refusals = Inbox<ChatterErrorBody>()
    /// The `id`s of the `pong`s to the user's own pings.
    let pongs = Inbox<String>()

    private let view = Mutex(UserView())

    /// Sorts one frame from the socket into its inbox.
    func record(_ frame: ServerFrame) {
        guard let observation = view.withLock({ $0.observe(frame) }) else { return }
        switch observation {
        case .message(let message): messages.deliver(message)
        case .change(let change): changes.deliver(change)
        case .typing(let indicator): typing.deliver(indicator)
        case .receipt(let update): receipts.deliver(update)
        case .refusal(let error): refusals.deliver(error)
        case .pong(let id): pongs.deliver(id)
        }
    }

    /// Remembers a message the user sent, as the service returned it (`UserView.know(_:)`).
    func know(_ message: Message) {
        view.withLock { $0.know(message) }
    }
}
