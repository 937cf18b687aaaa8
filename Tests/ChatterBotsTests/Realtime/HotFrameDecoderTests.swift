@testable import ChatterBots
import Foundation
import Testing

/// The hand-written decoder of `message.new` and `message.ack` answers exactly as the `Codable` path does, or
/// not at all (and the `Codable` path answers, with its typed errors).
@Suite("Hot frame decoding")
struct HotFrameDecoderTests {
    static let messages: [Message] = [
        Message(
            id: "M_1", conversationId: "C_1", seq: 1, senderId: "U_A", clientMessageId: nil, kind: .text, body: "hello",
            createdAt: Timestamp(millisecondsSince1970: 1_800_000_000_123)),
        Message(
            id: "M_2", conversationId: "C_1", seq: 9_007_199_254_740_993, senderId: "U_B", clientMessageId: "c-2",
            kind: .photo, body: nil, mediaId: "MED_1", replyToId: "M_1",
            createdAt: Timestamp(millisecondsSince1970: 0), editedAt: Timestamp(millisecondsSince1970: 5),
            deletedAt: Timestamp(millisecondsSince1970: 1_800_000_000_000)),
        Message(
            id: "M_3", conversationId: "C_2", seq: 0, senderId: "U_C", clientMessageId: "c-3", kind: .unrecognized("sticker"),
            body: "héllo — 🐱 \"quoted\" back\\slash\nline \u{7}bell", createdAt: Timestamp(millisecondsSince1970: 42)),
        Message(
            id: "M_4", conversationId: "C_2", seq: 4, senderId: "U_C", clientMessageId: nil, kind: .text, body: "/remind me",
            reactions: [Message.Reaction(emoji: "👍", userIds: ["U_A"])], createdAt: Timestamp(millisecondsSince1970: 7)),
    ]

    static let acks: [MessageAck] = [
        MessageAck(clientMessageId: "c-1", messageId: "M_9", conversationId: "C_1", seq: 9, createdAt: Timestamp(millisecondsSince1970: 99)),
    ]

    static var frames: [ServerFrame] {
        messages.map { ServerFrame(.messageNew($0)) } + acks.map { ServerFrame(.messageAck($0)) }
            + acks.map { ServerFrame(.messageAck($0), replyTo: "o-17", id: "s-1") }
    }

    static func codable(_ data: Data) -> Result<ServerFrame, FrameDecodingError> {
        Result { () throws(FrameDecodingError) in try ServerFrame.decodedWithCodable(data) }
    }

    static func hot(_ data: Data) -> ServerFrame? {
        data.withUnsafeBytes { raw in HotFrameDecoder.serverFrame(raw.bindMemory(to: UInt8.self)) }
    }

    @Test func framesOurEncoderWritesDecodeToTheSameValueAsCodable() throws {
        var decodedHot = 0
        for frame in Self.frames {
            let data = try frame.jsonData()
            #expect(try Self.codable(data).get() == frame)
            if let hot = Self.hot(data) {
                decodedHot += 1
                #expect(hot == frame)
            }
            #expect(try ServerFrame(jsonData: data) == frame)
        }
        // Only the frames with escaped strings or reactions take the Codable path.
        #expect(decodedHot == Self.frames.count - 2)
    }

    /// The heartbeat's `pong` with its empty data decodes without `Codable`; a `pong` carrying anything else is left
    /// to `Codable`, which reads it as the same `pong`.
    @Test func aPongDecodesLikeCodable() throws {
        let hotTexts = [
            #"{"type":"pong","replyTo":"c-2","data":{}}"#, #"{"data":{},"type":"pong","replyTo":"c-2"}"#,
            #"{ "type" : "pong" , "data" : { } }"#,
        ]
        for text in hotTexts {
            let data = Data(text.utf8)
            let hot = try #require(Self.hot(data), "\(text)")
            #expect(hot == (try Self.codable(data).get()))
            #expect(hot.event == .pong)
        }
        for text in [#"{"type":"pong","data":{"at":1}}"#, #"{"type":"pong"}"#] {
            let data = Data(text.utf8)
            #expect(Self.hot(data) == nil, "\(text)")
            #expect(try ServerFrame(jsonData: data).event == .pong)
        }
    }

    @Test func framesWithWhitespaceNullsAndAnyKeyOrderDecodeLikeCodable() throws {
        // The encoder writes keys in no fixed order; these fix one (data before type, type before data, spaces).
        let texts = [
            #" { "type" : "message.ack" , "data" : { "seq" : 3 , "createdAt" : "2027-01-15T08:00:00.000Z", "conversationId":"C", "messageId":"M", "clientMessageId":"k" } , "replyTo" : null , "id" : null } "#,
            #"{"type":"message.new","data":{"id":"M","conversationId":"C","seq":-0,"senderId":"U","type":"text","reactions":[ ],"createdAt":"2027-01-15T08:00:00Z"}}"#,
            #"{"replyTo":"o-1","type":"message.new","data":{"id":"M","conversationId":"C","seq":12,"senderId":"U","type":"voice","body":null,"mediaId":null,"replyToId":null,"clientMessageId":null,"editedAt":null,"deletedAt":null,"reactions":[],"createdAt":"2027-01-15T08:00:00.5Z"}}"#,
        ]
        for text in texts {
            let data = Data(text.utf8)
            let expected = try Self.codable(data).get()
            #expect(Self.hot(data) == expected, "\(text)")
        }
    }

    @Test func malformedOrUnusualInputIsLeftToCodableWhichGivesItsTypedError() throws {
        let valid = try ServerFrame(.messageNew(Self.messages[0])).jsonData()
        let ack = try ServerFrame(.messageAck(Self.acks[0])).jsonData()
        var inputs: [Data] = []
        // Every truncation of a valid frame.
        for source in [valid, ack] {
            for length in 0..<source.count { inputs.append(source.prefix(length)) }
        }
        let text = String(decoding: valid, as: UTF8.self)
        let changes: [(String, String)] = [
            ("\"seq\":1", "\"seq\":1.0"), ("\"seq\":1", "\"seq\":01"), ("\"seq\":1", "\"seq\":\"1\""), ("\"seq\":1", "\"seq\":1e0"),
            ("\"seq\":1", "\"seq\":99999999999999999999"), ("\"seq\":1", "\"seq\":null"), ("\"seq\":1", "\"sex\":1"),
            ("\"id\":\"M_1\"", "\"id\":\"M_1\",\"id\":\"M_2\""), ("\"body\":\"hello\"", "\"body\":\"he\u{1}llo\""),
            ("\"body\":\"hello\"", "\"body\":17"), ("\"reactions\":[]", "\"reactions\":null"), ("\"reactions\":[]", "\"reactionz\":[]"),
            ("\"createdAt\":\"", "\"createdAt\":\"x"), ("\"type\":\"text\"", "\"type\":null"),
            ("\"conversationId\":\"C_1\"", "\"conversationId\":\"C_1\",\"extra\":1"), ("{", "{\"data\":{},"),
            ("message.new", "message.updated"), ("\"data\":{", "\"data\":[{"), ("\"data\":{", "\"data\":{\"x\":\"}\","),
        ]
        for (from, to) in changes {
            #expect(text.contains(from), "\(from)")
            inputs.append(Data(text.replacingOccurrences(of: from, with: to).utf8))
        }
        inputs.append(Data((text + " x").utf8))
        inputs.append(Data((text.dropLast() + ",}").utf8))
        inputs.append(Data((text + "}").utf8))
        inputs.append(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]))
        for input in inputs {
            let codable = Self.codable(input)
            if let hot = Self.hot(input) {
                #expect(try codable.get() == hot, "\(String(decoding: input, as: UTF8.self))")
            }
            let frame = Result { () throws(FrameDecodingError) in try ServerFrame(jsonData: input) }
            #expect(frame == codable, "\(String(decoding: input, as: UTF8.self))")
        }
    }

    /// The payload is read in place when the type comes first, and after the envelope when it comes later; a second
    /// `data` or `type` member is left to `Codable` either way.
    @Test func aRepeatedDataOrTypeMemberIsLeftToCodable() throws {
        let data = try ServerFrame(.messageAck(Self.acks[0])).jsonData()
        let payload = String(decoding: try WireCoding.encoder.encode(Self.acks[0]), as: UTF8.self)
        let texts = [
            #"{"type":"message.ack","data":\#(payload),"data":\#(payload)}"#,
            #"{"data":\#(payload),"type":"message.ack","data":\#(payload)}"#,
            #"{"data":\#(payload),"data":\#(payload),"type":"message.ack"}"#,
            #"{"type":"message.ack","data":\#(payload),"type":"message.ack"}"#,
        ]
        for text in texts { #expect(Self.hot(Data(text.utf8)) == nil, "\(text)") }
        #expect(Self.hot(Data(#"{"type":"message.ack","data":\#(payload)}"#.utf8)) == ServerFrame(.messageAck(Self.acks[0])))
        #expect(Self.hot(Data(#"{"data":\#(payload),"type":"message.ack"}"#.utf8)) == ServerFrame(.messageAck(Self.acks[0])))
        #expect(Self.hot(data) == ServerFrame(.messageAck(Self.acks[0])))
    }

    /// A payload of the other kind than the frame's type, before or after it, is left to `Codable` (which refuses it).
    @Test func aPayloadThatDoesNotMatchTheTypeIsLeftToCodable() throws {
        let ack = String(decoding: try WireCoding.encoder.encode(Self.acks[0]), as: UTF8.self)
        let message = String(decoding: try WireCoding.encoder.encode(Self.messages[0]), as: UTF8.self)
        let texts = [
            #"{"data":\#(message),"type":"message.ack"}"#, #"{"type":"message.ack","data":\#(message)}"#,
            #"{"data":\#(ack),"type":"message.new"}"#, #"{"type":"message.new","data":\#(ack)}"#,
        ]
        for text in texts {
            #expect(Self.hot(Data(text.utf8)) == nil, "\(text)")
            #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(text.utf8)) }
        }
        #expect(Self.hot(Data(#"{"data":\#(message),"type":"message.new"}"#.utf8)) == ServerFrame(.messageNew(Self.messages[0])))
    }
}
