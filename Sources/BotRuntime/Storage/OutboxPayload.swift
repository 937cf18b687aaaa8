import ChatterBots
import Foundation

/// The stored form of an outbox entry's `message.send` payload: JSON text that `MessageSend`'s `Decodable`
/// reads back exactly.
///
/// Written by hand because it is on the hot path (one per reply): a generic `JSONEncoder` costs several
/// times more than the rest of enqueueing. Decoding, needed only to resend, uses `JSONDecoder`.
enum OutboxPayload {
    static func json(_ message: MessageSend) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + (message.content.body?.utf8.count ?? 0))
        append("{\"conversationId\":", to: &bytes)
        appendString(message.conversationId.rawValue, to: &bytes)
        append(",\"clientMessageId\":", to: &bytes)
        appendString(message.clientMessageId.rawValue, to: &bytes)
        append(",\"type\":", to: &bytes)
        appendString(message.content.kind.rawValue, to: &bytes)
        append(",\"body\":", to: &bytes)
        appendOptionalString(message.content.body, to: &bytes)
        append(",\"mediaId\":", to: &bytes)
        appendOptionalString(message.content.mediaId?.rawValue, to: &bytes)
        append(",\"replyToId\":", to: &bytes)
        appendOptionalString(message.content.replyToId?.rawValue, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    static func message(from json: String, key: String) throws(BotStoreError) -> MessageSend {
        do {
            return try JSONDecoder().decode(MessageSend.self, from: Data(json.utf8))
        } catch {
            throw .corruptRecord(table: "outbox", key: key, reason: "payload: \(error)")
        }
    }

    private static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private static func appendOptionalString(_ value: String?, to bytes: inout [UInt8]) {
        if let value {
            appendString(value, to: &bytes)
        } else {
            append("null", to: &bytes)
        }
    }

    /// Appends `value` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    private static func appendString(_ value: String, to bytes: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
