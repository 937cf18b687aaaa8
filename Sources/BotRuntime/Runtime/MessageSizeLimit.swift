import ChatterBots

/// The service's size limits on an outgoing message, checked before it is queued: a body over 4,096 characters
/// is `VALIDATION_FAILED`, and a `message.send` frame over 64 KiB makes the service close the socket with 1009,
/// which no resend can fix. Refusing such a message at `send` keeps it out of the outbox, where it would block
/// every message queued behind it.
enum MessageSizeLimit {
    /// The longest body the service accepts, in characters (chatter-api.md).
    static let maxBodyCharacters = 4_096
    /// The largest text frame the service reads; anything larger is closed with 1009.
    static let maxFrameBytes = 64 * 1024
    /// A stand-in `clientMessageId` for checking a message before its id is chosen: as long as a random or derived
    /// id (a UUID's 36 characters), which is what the check measures.
    static let placeholderID = ClientMessageID("00000000-0000-0000-0000-000000000000")
    /// Room kept for the frame's envelope (`id`, `type`, `data`) around the payload.
    static let envelopeAllowance = 256

    /// Throws `VALIDATION_FAILED` (field `body`) when the service would refuse `message` for its size.
    static func check(_ message: MessageSend) throws(ChatterAPIError) {
        if let body = message.content.body, body.count > maxBodyCharacters {
            throw ChatterAPIError(
                code: .validationFailed,
                message: "A message body has at most \(maxBodyCharacters) characters (this one has \(body.count)); "
                    + "split it into several messages. Nothing was sent.",
                details: ["field": "body"])
        }
        let bytes = OutboxPayload.json(message).utf8.count
        if bytes + envelopeAllowance > maxFrameBytes {
            throw ChatterAPIError(
                code: .validationFailed,
                message: "This message encodes to \(bytes) bytes, over the service's \(maxFrameBytes)-byte frame limit; "
                    + "shorten it. Nothing was sent.",
                details: ["field": "body"])
        }
    }
}
