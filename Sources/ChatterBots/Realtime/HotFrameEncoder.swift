/// Writes the frames sent most straight as bytes, without `JSONEncoder`'s intermediate containers: a busy bot's
/// `receipt.read`, `receipt.delivered`, `ping`, `typing.start` and `typing.stop`, and a server's `message.new`
/// and `message.ack` (for the package's servers: the sandbox and the bench's load server).
///
/// It only answers when its output is the same JSON object `jsonData()` writes (the same keys and values; only
/// the key order may differ, as it may between runs of `JSONEncoder`) and its strings need no escaping. For any
/// other frame or string it returns nil and the caller takes the `Codable` path.
package enum HotFrameEncoder {
    /// The frame's JSON text, or nil to take the `Codable` path.
    static func text(_ frame: ClientFrame) -> String? {
        guard var bytes = frameOpening(id: frame.id, capacity: 96) else { return nil }
        switch frame.request {
        case .ping:
            append("\"type\":\"ping\",\"data\":{}}", to: &bytes)
        case .receiptRead(let position):
            append("\"type\":\"receipt.read\",", to: &bytes)
            guard appendPosition(position, to: &bytes) else { return nil }
        case .receiptDelivered(let position):
            append("\"type\":\"receipt.delivered\",", to: &bytes)
            guard appendPosition(position, to: &bytes) else { return nil }
        case .typingStart(let conversation):
            append("\"type\":\"typing.start\",\"data\":{\"conversationId\":", to: &bytes)
            guard appendPlainString(conversation.rawValue, to: &bytes) else { return nil }
            append("}}", to: &bytes)
        case .typingStop(let conversation):
            append("\"type\":\"typing.stop\",\"data\":{\"conversationId\":", to: &bytes)
            guard appendPlainString(conversation.rawValue, to: &bytes) else { return nil }
            append("}}", to: &bytes)
        case .sendMessage, .syncRequest, .unknown:
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The JSON text of a `message.new` or `message.ack` frame, or nil to take the `Codable` path (another event,
    /// reactions, a string that needs escaping).
    package static func text(_ frame: ServerFrame) -> String? {
        guard var bytes = frameOpening(id: frame.id, capacity: 400) else { return nil }
        switch frame.event {
        case .messageNew(let message):
            append("\"type\":\"message.new\",\"data\":", to: &bytes)
            guard appendMessage(message, to: &bytes) else { return nil }
        case .messageAck(let ack):
            append("\"type\":\"message.ack\",\"data\":{\"clientMessageId\":", to: &bytes)
            guard appendPlainString(ack.clientMessageId.rawValue, to: &bytes) else { return nil }
            append(",\"messageId\":", to: &bytes)
            guard appendPlainString(ack.messageId.rawValue, to: &bytes) else { return nil }
            append(",\"conversationId\":", to: &bytes)
            guard appendPlainString(ack.conversationId.rawValue, to: &bytes) else { return nil }
            append(",\"seq\":", to: &bytes)
            bytes.append(contentsOf: String(ack.seq).utf8)
            append(",\"createdAt\":", to: &bytes)
            appendTimestamp(ack.createdAt, to: &bytes)
            append("}", to: &bytes)
        default:
            return nil
        }
        if let replyTo = frame.replyTo {
            append(",\"replyTo\":", to: &bytes)
            guard appendPlainString(replyTo, to: &bytes) else { return nil }
        }
        append("}", to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A message without reactions as `Message.encode(to:)` writes it; false when it has reactions or a string
    /// that needs escaping.
    private static func appendMessage(_ message: Message, to bytes: inout [UInt8]) -> Bool {
        guard message.reactions.isEmpty else { return false }
        append("{\"id\":", to: &bytes)
        guard appendPlainString(message.id.rawValue, to: &bytes) else { return false }
        append(",\"conversationId\":", to: &bytes)
        guard appendPlainString(message.conversationId.rawValue, to: &bytes) else { return false }
        append(",\"seq\":", to: &bytes)
        bytes.append(contentsOf: String(message.seq).utf8)
        append(",\"senderId\":", to: &bytes)
        guard appendPlainString(message.senderId.rawValue, to: &bytes) else { return false }
        append(",\"clientMessageId\":", to: &bytes)
        guard appendOptionalPlainString(message.clientMessageId?.rawValue, to: &bytes) else { return false }
        append(",\"type\":", to: &bytes)
        guard appendPlainString(message.kind.rawValue, to: &bytes) else { return false }
        append(",\"body\":", to: &bytes)
        guard appendOptionalPlainString(message.body, to: &bytes) else { return false }
        append(",\"mediaId\":", to: &bytes)
        guard appendOptionalPlainString(message.mediaId?.rawValue, to: &bytes) else { return false }
        append(",\"replyToId\":", to: &bytes)
        guard appendOptionalPlainString(message.replyToId?.rawValue, to: &bytes) else { return false }
        append(",\"reactions\":[],\"createdAt\":", to: &bytes)
        appendTimestamp(message.createdAt, to: &bytes)
        append(",\"editedAt\":", to: &bytes)
        if let editedAt = message.editedAt { appendTimestamp(editedAt, to: &bytes) } else { append("null", to: &bytes) }
        append(",\"deletedAt\":", to: &bytes)
        if let deletedAt = message.deletedAt { appendTimestamp(deletedAt, to: &bytes) } else { append("null", to: &bytes) }
        append("}", to: &bytes)
        return true
    }

    private static func appendTimestamp(_ timestamp: Timestamp, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: timestamp.iso8601.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendOptionalPlainString(_ value: String?, to bytes: inout [UInt8]) -> Bool {
        guard let value else {
            append("null", to: &bytes)
            return true
        }
        return appendPlainString(value, to: &bytes)
    }

    /// `{` and the frame's `"id":…,` when it has one; nil when the id needs escaping.
    private static func frameOpening(id: String?, capacity: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        append("{", to: &bytes)
        if let id {
            append("\"id\":", to: &bytes)
            guard appendPlainString(id, to: &bytes) else { return nil }
            append(",", to: &bytes)
        }
        return bytes
    }

    /// `"data":{"conversationId":…,"seq":…}}`, closing the frame.
    private static func appendPosition(_ position: ReceiptPosition, to bytes: inout [UInt8]) -> Bool {
        append("\"data\":{\"conversationId\":", to: &bytes)
        guard appendPlainString(position.conversationId.rawValue, to: &bytes) else { return false }
        append(",\"seq\":", to: &bytes)
        bytes.append(contentsOf: String(position.seq).utf8)
        append("}}", to: &bytes)
        return true
    }

    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `value` quoted when it holds only printable ASCII other than `"` and `\` (what every encoder
    /// writes unchanged); false, with `bytes` to be discarded, otherwise.
    private static func appendPlainString(_ value: String, to bytes: inout [UInt8]) -> Bool {
        var value = value
        return value.withUTF8 { utf8 in
            for byte in utf8 {
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
    }
}
