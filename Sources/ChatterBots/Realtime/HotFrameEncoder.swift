/// Writes the small frames a busy bot sends most (`receipt.read`, `receipt.delivered`, `ping`, `typing.start`,
/// `typing.stop`) straight as bytes, without `JSONEncoder`'s intermediate containers.
///
/// It only answers when its output is the same JSON object ``ClientFrame/jsonData()`` writes (the same keys and
/// values; only the key order may differ, as it may between runs of `JSONEncoder`) and its strings need no
/// escaping. For any other frame or string it returns nil and the caller takes the `Codable` path.
enum HotFrameEncoder {
    /// The frame's JSON text, or nil to take the `Codable` path.
    static func text(_ frame: ClientFrame) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(96)
        append("{", to: &bytes)
        if let id = frame.id {
            append("\"id\":", to: &bytes)
            guard appendPlainString(id, to: &bytes) else { return nil }
            append(",", to: &bytes)
        }
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
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") else { return false }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
        return true
    }
}
