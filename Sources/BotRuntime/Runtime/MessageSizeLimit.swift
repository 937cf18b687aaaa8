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
    /// Room kept for the frame's envelope (`id`, `type`, `data`) around the payload.
    static let envelopeAllowance = 256

    /// Encodes `message` as the outbox stores and sends it, and returns that text; throws `VALIDATION_FAILED`
    /// (field `body`) when the service would refuse it for its size. Checked on the payload that will be sent, so
    /// call it with the message's real `clientMessageId`.
    static func checkedPayload(of message: MessageSend) throws(ChatterAPIError) -> String {
        if let body = message.content.body, !fitsBody(body) {
            throw ChatterAPIError(
                code: .validationFailed,
                message: "A message body has at most \(maxBodyCharacters) characters (this one has \(body.count)); "
                    + "split it into several messages. Nothing was sent.",
                details: ["field": "body"])
        }
        let payload = OutboxPayload.json(message)
        guard fitsFrame(payload) else {
            throw ChatterAPIError(
                code: .validationFailed,
                message: "This message encodes to \(payload.utf8.count) bytes, over the service's \(maxFrameBytes)-byte frame "
                    + "limit; shorten it. Nothing was sent.",
                details: ["field": "body"])
        }
        return payload
    }

    /// Throws `VALIDATION_FAILED` for a change the service would refuse for its input: an edit to an empty body or
    /// one over ``maxBodyCharacters``, an empty emoji (or one that is not one). Checked when the handler asks, so a refusal reaches it
    /// instead of a log line after the commit.
    static func check(_ change: MessageChange) throws(ChatterAPIError) {
        switch change {
        case .edit(let body):
            guard !body.isEmpty, fitsBody(body) else {
                throw ChatterAPIError(
                    code: .validationFailed,
                    message: "An edited body has 1 to \(maxBodyCharacters) characters (this one has \(body.count)). "
                        + "Nothing was changed.",
                    details: ["field": "body"])
            }
        case .addReaction(let emoji), .removeReaction(let emoji):
            // "." and ".." cannot name a reaction in its URL path.
            guard !emoji.isEmpty, emoji.utf8.count <= 64, emoji != ".", emoji != ".." else {
                throw ChatterAPIError(
                    code: .validationFailed, message: "A reaction is one emoji. Nothing was changed.", details: ["field": "emoji"])
            }
        case .delete:
            break
        }
    }

    /// Throws `VALIDATION_FAILED` for a caption over ``maxBodyCharacters``, before anything is uploaded.
    static func checkCaption(_ caption: String?) throws(ChatterAPIError) {
        guard let caption, !fitsBody(caption) else { return }
        throw ChatterAPIError(
            code: .validationFailed,
            message: "A caption has at most \(maxBodyCharacters) characters (this one has \(caption.count)). Nothing was sent.",
            details: ["field": "body"])
    }

    /// Whether the service accepts `message`, encoded as `payload`, for its size (what ``checkedPayload(of:)``
    /// checks, on a payload already encoded).
    static func accepts(_ message: MessageSend, encodedAs payload: String) -> Bool {
        (message.content.body.map(fitsBody) ?? true) && fitsFrame(payload)
    }

    /// A character has at least one UTF-8 byte, so a body of at most that many bytes fits without counting its
    /// characters (which walks every grapheme).
    private static func fitsBody(_ body: String) -> Bool {
        body.utf8.count <= maxBodyCharacters || body.count <= maxBodyCharacters
    }

    private static func fitsFrame(_ payload: String) -> Bool {
        payload.utf8.count + envelopeAllowance <= maxFrameBytes
    }
}
