/// Decodes the frames sent most straight from their bytes, without `JSONDecoder`'s intermediate tree and keyed
/// containers: the `message.new` and `message.ack` a busy bot receives (and the `pong` every bot's heartbeat gets),
/// and the `message.send`, `receipt.read` and `receipt.delivered` a server receives from busy bots.
///
/// It only ever answers for input it fully understands: the envelope and payload keys in any order, every key known,
/// strings without escapes, plain integers, `reactions` empty. For anything else (another frame type, an
/// unknown or repeated key, an escape, malformed JSON) it returns nil and ``ServerFrame/init(jsonData:)`` or
/// ``ClientFrame/init(jsonData:)`` takes the `Codable` path, which gives the same value or the same
/// ``FrameDecodingError`` it always did. So a value it returns is exactly what `Codable` decodes, and it never throws.
struct HotFrameDecoder {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    /// The server frame in `bytes`, or nil to take the `Codable` path.
    static func serverFrame(_ bytes: UnsafeBufferPointer<UInt8>) -> ServerFrame? {
        var decoder = HotFrameDecoder(bytes: bytes)
        guard let (event, id, replyTo) = decoder.envelope(acceptsReplyTo: true, type: ServerFrameType.init, payload: { decoder, type in
            switch type {
            case .messageNew: decoder.message().map(ServerEvent.messageNew)
            case .messageAck: decoder.ack().map(ServerEvent.messageAck)
            case .pong: decoder.object { _, _ in false } ? ServerEvent.pong : nil
            }
        }) else { return nil }
        return ServerFrame(event, replyTo: replyTo, id: id)
    }

    /// The client frame in `bytes`, or nil to take the `Codable` path.
    static func clientFrame(_ bytes: UnsafeBufferPointer<UInt8>) -> ClientFrame? {
        var decoder = HotFrameDecoder(bytes: bytes)
        // A client frame has no `replyTo`: `Codable` passes over one, so it is left to `Codable`.
        guard let (request, id, _) = decoder.envelope(acceptsReplyTo: false, type: ClientFrameType.init, payload: { decoder, type in
            switch type {
            case .messageSend: decoder.messageSend().map(ClientRequest.sendMessage)
            case .receiptRead: decoder.receiptPosition().map(ClientRequest.receiptRead)
            case .receiptDelivered: decoder.receiptPosition().map(ClientRequest.receiptDelivered)
            }
        }) else { return nil }
        return ClientFrame(request, id: id)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - The envelope

    private enum ServerFrameType {
        case messageNew, messageAck, pong

        init?(_ type: UnsafeBufferPointer<UInt8>) {
            if type.matches("message.new") {
                self = .messageNew
            } else if type.matches("message.ack") {
                self = .messageAck
            } else if type.matches("pong") {
                self = .pong
            } else {
                return nil
            }
        }
    }

    private enum ClientFrameType {
        case messageSend, receiptRead, receiptDelivered

        init?(_ type: UnsafeBufferPointer<UInt8>) {
            if type.matches("message.send") {
                self = .messageSend
            } else if type.matches("receipt.read") {
                self = .receiptRead
            } else if type.matches("receipt.delivered") {
                self = .receiptDelivered
            } else {
                return nil
            }
        }
    }

    /// Reads the envelope `{ type, data, id, replyTo }` (keys in any order) and its payload: in place when `type`
    /// came first, from the kept bytes of `data` when it comes later. Nil when a key is unknown or repeated, the type
    /// is not one `type` knows, or `payload` cannot read the data.
    private mutating func envelope<FrameType, Payload>(
        acceptsReplyTo: Bool,
        type recognize: (UnsafeBufferPointer<UInt8>) -> FrameType?,
        payload read: (inout HotFrameDecoder, FrameType) -> Payload?
    ) -> (payload: Payload, id: String?, replyTo: String?)? {
        var type: FrameType?
        var data: Range<Int>?
        var payload: Payload?
        var id: String??
        var replyTo: String??
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        var first = true
        while true {
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { break }
            if !first { guard consume(UInt8(ascii: ",")) else { return nil } }
            first = false
            guard let key = keyBytes() else { return nil }
            if key.matches("type") {
                skipWhitespace()
                guard type == nil, let value = stringBytes(), let known = recognize(value) else { return nil }
                type = known
            } else if key.matches("data") {
                guard data == nil, payload == nil else { return nil }
                if let type {
                    guard let value = read(&self, type) else { return nil }
                    payload = value
                } else {
                    guard let range = skipObject() else { return nil }
                    data = range
                }
            } else if key.matches("id") {
                guard id == nil, let value = optionalString() else { return nil }
                id = .some(value)
            } else if acceptsReplyTo, key.matches("replyTo") {
                guard replyTo == nil, let value = optionalString() else { return nil }
                replyTo = .some(value)
            } else {
                return nil
            }
        }
        skipWhitespace()
        guard index == bytes.count, let type else { return nil }
        if payload == nil, let data {
            var nested = HotFrameDecoder(bytes: UnsafeBufferPointer(rebasing: bytes[data]))
            payload = read(&nested, type)
            guard nested.index == nested.bytes.count else { return nil }
        }
        guard let payload else { return nil }
        return (payload, id ?? nil, replyTo ?? nil)
    }

    /// Passes over an object (nested values and strings with escapes included) and returns its bytes; nil when it
    /// does not start with `{` or does not end. Only brackets and strings are followed: the typed reading of the
    /// bytes is what checks them.
    private mutating func skipObject() -> Range<Int>? {
        skipWhitespace()
        let start = index
        guard consume(UInt8(ascii: "{")) else { return nil }
        var depth = 1
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return start..<index }
            default:
                break
            }
        }
        return nil
    }

    // MARK: - Payloads

    private mutating func message() -> Message? {
        var id: String?, conversationId: String?, seq: Int?, senderId: String?, kind: String?, createdAt: Timestamp?
        var clientMessageId: String??, body: String??, mediaId: String??, replyToId: String??
        var editedAt: Timestamp??, deletedAt: Timestamp??
        var reactions: Bool?
        guard object({ decoder, key in
            if key.matches("id") {
                return HotFrameDecoder.set(&id, decoder.plainString())
            } else if key.matches("conversationId") {
                return HotFrameDecoder.set(&conversationId, decoder.plainString())
            } else if key.matches("seq") {
                return HotFrameDecoder.set(&seq, decoder.sequenceNumber())
            } else if key.matches("senderId") {
                return HotFrameDecoder.set(&senderId, decoder.plainString())
            } else if key.matches("clientMessageId") {
                return HotFrameDecoder.set(&clientMessageId, decoder.optionalString())
            } else if key.matches("type") {
                return HotFrameDecoder.set(&kind, decoder.plainString())
            } else if key.matches("body") {
                return HotFrameDecoder.set(&body, decoder.optionalString())
            } else if key.matches("mediaId") {
                return HotFrameDecoder.set(&mediaId, decoder.optionalString())
            } else if key.matches("replyToId") {
                return HotFrameDecoder.set(&replyToId, decoder.optionalString())
            } else if key.matches("reactions") {
                return HotFrameDecoder.set(&reactions, decoder.emptyArray() ? true : nil)
            } else if key.matches("createdAt") {
                return HotFrameDecoder.set(&createdAt, decoder.timestamp())
            } else if key.matches("editedAt") {
                return HotFrameDecoder.set(&editedAt, decoder.optionalTimestamp())
            } else if key.matches("deletedAt") {
                return HotFrameDecoder.set(&deletedAt, decoder.optionalTimestamp())
            }
            return false
        }) else { return nil }
        guard let id, let conversationId, let seq, let senderId, let kind, let createdAt, reactions != nil else { return nil }
        return Message(
            id: Message.ID(id), conversationId: Conversation.ID(conversationId), seq: seq, senderId: User.ID(senderId),
            clientMessageId: (clientMessageId ?? nil).map(ClientMessageID.init(rawValue:)), kind: Message.Kind(rawValue: kind),
            body: body ?? nil, mediaId: (mediaId ?? nil).map(Media.ID.init(rawValue:)),
            replyToId: (replyToId ?? nil).map(Message.ID.init(rawValue:)), reactions: [], createdAt: createdAt,
            editedAt: editedAt ?? nil, deletedAt: deletedAt ?? nil)
    }

    private mutating func ack() -> MessageAck? {
        var clientMessageId: String?, messageId: String?, conversationId: String?, seq: Int?, createdAt: Timestamp?
        guard object({ decoder, key in
            if key.matches("clientMessageId") {
                return HotFrameDecoder.set(&clientMessageId, decoder.plainString())
            } else if key.matches("messageId") {
                return HotFrameDecoder.set(&messageId, decoder.plainString())
            } else if key.matches("conversationId") {
                return HotFrameDecoder.set(&conversationId, decoder.plainString())
            } else if key.matches("seq") {
                return HotFrameDecoder.set(&seq, decoder.sequenceNumber())
            } else if key.matches("createdAt") {
                return HotFrameDecoder.set(&createdAt, decoder.timestamp())
            }
            return false
        }) else { return nil }
        guard let clientMessageId, let messageId, let conversationId, let seq, let createdAt else { return nil }
        return MessageAck(
            clientMessageId: ClientMessageID(rawValue: clientMessageId), messageId: Message.ID(messageId),
            conversationId: Conversation.ID(conversationId), seq: seq, createdAt: createdAt)
    }

    private mutating func messageSend() -> MessageSend? {
        var conversationId: String?, clientMessageId: String?, kind: String?
        var body: String??, mediaId: String??, replyToId: String??
        guard object({ decoder, key in
            if key.matches("conversationId") {
                return HotFrameDecoder.set(&conversationId, decoder.plainString())
            } else if key.matches("clientMessageId") {
                return HotFrameDecoder.set(&clientMessageId, decoder.plainString())
            } else if key.matches("type") {
                return HotFrameDecoder.set(&kind, decoder.plainString())
            } else if key.matches("body") {
                return HotFrameDecoder.set(&body, decoder.optionalString())
            } else if key.matches("mediaId") {
                return HotFrameDecoder.set(&mediaId, decoder.optionalString())
            } else if key.matches("replyToId") {
                return HotFrameDecoder.set(&replyToId, decoder.optionalString())
            }
            return false
        }) else { return nil }
        guard let conversationId, let clientMessageId, let kind else { return nil }
        return MessageSend(
            conversationId: Conversation.ID(conversationId), clientMessageId: ClientMessageID(rawValue: clientMessageId),
            content: MessageContent(
                kind: Message.Kind(rawValue: kind), body: body ?? nil, mediaId: (mediaId ?? nil).map(Media.ID.init(rawValue:)),
                replyToId: (replyToId ?? nil).map(Message.ID.init(rawValue:))))
    }

    private mutating func receiptPosition() -> ReceiptPosition? {
        var conversationId: String?, seq: Int?
        guard object({ decoder, key in
            if key.matches("conversationId") {
                return HotFrameDecoder.set(&conversationId, decoder.plainString())
            } else if key.matches("seq") {
                return HotFrameDecoder.set(&seq, decoder.sequenceNumber())
            }
            return false
        }) else { return nil }
        guard let conversationId, let seq else { return nil }
        return ReceiptPosition(conversationId: Conversation.ID(conversationId), seq: seq)
    }

    /// Stores a field's value once: false when it was set already (a repeated key) or could not be read.
    private static func set<Value>(_ field: inout Value?, _ value: Value?) -> Bool {
        guard field == nil, let value else { return false }
        field = value
        return true
    }

    /// Reads an object whose members `member` reads after their key; false when anything is off.
    private mutating func object(_ member: (inout HotFrameDecoder, UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return false }
        var first = true
        while true {
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            if !first { guard consume(UInt8(ascii: ",")) else { return false } }
            first = false
            guard let key = keyBytes(), member(&self, key) else { return false }
        }
    }

    // MARK: - Values

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// A member's key and the colon after it.
    private mutating func keyBytes() -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard let key = stringBytes() else { return nil }
        skipWhitespace()
        guard consume(UInt8(ascii: ":")) else { return nil }
        return key
    }

    /// The bytes of a string without escapes or control characters, quotes excluded.
    private mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return UnsafeBufferPointer(rebasing: bytes[start..<index])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A string value (valid UTF-8, no escapes). ASCII, the usual case, is made without `String(validating:)`, whose
    /// generic metadata lookups cost more than the copy.
    private mutating func plainString() -> String? {
        skipWhitespace()
        guard let raw = stringBytes() else { return nil }
        if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        return String(validating: raw, as: UTF8.self)
    }

    /// A string or `null` (`.some(nil)`); nil when it is neither.
    private mutating func optionalString() -> String?? {
        skipWhitespace()
        if consumeNull() { return .some(nil) }
        guard let value = plainString() else { return nil }
        return .some(value)
    }

    private mutating func consumeNull() -> Bool {
        guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
            bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// An integer in ``SequenceNumber/range``; nil otherwise, which leaves the frame to the full decoder and its error.
    private mutating func sequenceNumber() -> Int? {
        integer().flatMap { SequenceNumber.range.contains($0) ? $0 : nil }
    }

    /// An integer written plainly (`0`, `-12`, `345`): no fraction, exponent or leading zero; nil when it does not
    /// fit an `Int`.
    private mutating func integer() -> Int? {
        skipWhitespace()
        let negative = consume(UInt8(ascii: "-"))
        let start = index
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let digit = Int(bytes[index] - UInt8(ascii: "0"))
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: break
            }
        }
        return negative ? -value : value
    }

    /// A timestamp read from the string's bytes (no `String` made); nil when it is not one.
    private mutating func timestamp() -> Timestamp? {
        skipWhitespace()
        guard let raw = stringBytes(), case .success(let milliseconds) = ISO8601Timestamp.parse(raw) else { return nil }
        return Timestamp(millisecondsSince1970: milliseconds)
    }

    private mutating func optionalTimestamp() -> Timestamp?? {
        skipWhitespace()
        if consumeNull() { return .some(nil) }
        guard let value = timestamp() else { return nil }
        return .some(value)
    }

    /// `[]`.
    private mutating func emptyArray() -> Bool {
        skipWhitespace()
        guard consume(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        return consume(UInt8(ascii: "]"))
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `literal`'s UTF-8: lengths first (most keys differ there), then the bytes,
    /// without `elementsEqual`'s generic iteration of a `String.UTF8View`.
    fileprivate func matches(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { expected in
            for offset in 0..<count where self[offset] != expected[offset] { return false }
            return true
        }
    }
}
