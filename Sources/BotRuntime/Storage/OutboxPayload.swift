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
    /// Runs of bytes that need no escape are copied at once.
    private static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                default:
                    bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigit(byte >> 4), hexDigit(byte & 0x0f)]
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The lowercase hex digit of `nibble` (0–15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
