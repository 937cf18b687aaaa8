/// Which receipts a bot sends: `receipt.delivered` once an incoming message is stored, `receipt.read` once its
/// handler finished. Receipts are watermarks, so a burst of messages costs one receipt per conversation. Senders see
/// the bot's progress through them (✓ delivered, ✓✓ read); a bot that sends none still gets every message.
public struct ReceiptPolicy: Sendable, Equatable {
    /// Whether it sends `receipt.delivered` once a message is stored.
    public var sendsDelivered: Bool
    /// Whether it sends `receipt.read` once a message's handler finished (`read` implies delivered to the service).
    public var sendsRead: Bool

    /// Creates a policy; by default both receipts.
    public init(sendsDelivered: Bool = true, sendsRead: Bool = true) {
        self.sendsDelivered = sendsDelivered
        self.sendsRead = sendsRead
    }

    /// No receipts at all: senders never see the bot's progress.
    public static let none = ReceiptPolicy(sendsDelivered: false, sendsRead: false)
}
