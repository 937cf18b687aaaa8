import ChatterBots

/// A client frame that needs the service or the hub, as the socket session hands it over to be carried out.
/// (`ping` never leaves the session: it is answered there.)
public enum RealtimeCommand: Sendable, Hashable {
    /// `message.send`: store (idempotently) and answer `message.ack` or `error`.
    case sendMessage(MessageSend)
    /// `receipt.delivered`: move the caller's delivered watermark forward.
    case receiptDelivered(ReceiptPosition)
    /// `receipt.read`: move the caller's read (and delivered) watermark forward.
    case receiptRead(ReceiptPosition)
    /// `typing.start`: the caller is typing in the conversation.
    case typingStart(Conversation.ID)
    /// `typing.stop`: the caller stopped typing.
    case typingStop(Conversation.ID)
    /// `sync.request`: answer `sync.response`.
    case sync(SyncRequest)
}
