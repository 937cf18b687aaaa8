@testable import ChatterBots
import Foundation
import Testing

/// The hand-written decoder of `message.send`, `receipt.read` and `receipt.delivered` (what a server receives most)
/// answers exactly as the `Codable` path does, or not at all (and the `Codable` path answers, with its typed errors).
@Suite("Hot client frame decoding")
struct HotClientFrameDecoderTests {
    static let sends: [MessageSend] = [
        MessageSend(conversationId: "C_1", clientMessageId: "c-1", content: .text("hello")),
        MessageSend(conversationId: "C_1", clientMessageId: "c-2", content: .text("/remind me", replyingTo: "M_1")),
        MessageSend(conversationId: "C_2", clientMessageId: "c-3", content: .media(.photo, "MED_1", caption: "a cat")),
        MessageSend(conversationId: "C_2", clientMessageId: "c-4", content: .media(.voice, "MED_2")),
        MessageSend(
            conversationId: "C_3", clientMessageId: "c-5",
            content: MessageContent(kind: .unrecognized("sticker"), body: "héllo 🐱 \"quoted\"\nline")),
    ]

    static var frames: [ClientFrame] {
        sends.enumerated().map { ClientFrame(.sendMessage($1), id: "o-\($0)") }
            + [ClientFrame(.sendMessage(sends[0]))]
            + [
                ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_1", seq: 7))),
                ClientFrame(.receiptDelivered(ReceiptPosition(conversationId: "C_1", seq: 9_007_199_254_740_993)), id: "r-1"),
            ]
    }

    static func codable(_ data: Data) -> Result<ClientFrame, FrameDecodingError> {
        Result { () throws(FrameDecodingError) in try ClientFrame.decodedWithCodable(data) }
    }

    static func hot(_ data: Data) -> ClientFrame? {
        data.withUnsafeBytes { raw in HotFrameDecoder.clientFrame(raw.bindMemory(to: UInt8.self)) }
    }

    /// Both ways a frame is written: `JSONEncoder`, and the hand-written encoder of receipts.
    static func encodings(_ frame: ClientFrame) throws -> [Data] {
        [try frame.jsonData()] + (HotFrameEncoder.text(frame).map { [Data($0.utf8)] } ?? [])
    }

    @Test func framesOurEncodersWriteDecodeToTheSameValueAsCodable() throws {
        var decodedHot = 0
        for frame in Self.frames {
            for data in try Self.encodings(frame) {
                #expect(try Self.codable(data).get() == frame)
                if let hot = Self.hot(data) {
                    decodedHot += 1
                    #expect(hot == frame)
                }
                #expect(try ClientFrame(jsonData: data) == frame)
            }
        }
        // Only the send with escaped characters in its body takes the Codable path.
        #expect(decodedHot == Self.frames.count + 2 - 1)
    }

    /// What a bot's outbox writes: its stored payload spliced into the envelope, `id` first.
    @Test func aSendSplicedFromItsStoredPayloadDecodesHot() throws {
        let payload = String(decoding: try WireCoding.encoder.encode(Self.sends[1]), as: UTF8.self)
        let data = Data(#"{"id":"o-9","type":"message.send","data":\#(payload)}"#.utf8)
        #expect(Self.hot(data) == ClientFrame(.sendMessage(Self.sends[1]), id: "o-9"))
    }

    @Test func framesWithWhitespaceNullsAndAnyKeyOrderDecodeLikeCodable() throws {
        let texts = [
            #" { "data" : { "seq" : 3 , "conversationId" : "C" } , "type" : "receipt.read" , "id" : null } "#,
            #"{"type":"message.send","data":{"type":"text","body":"hi","clientMessageId":"k","conversationId":"C"}}"#,
            #"{"data":{"conversationId":"C","clientMessageId":"k","type":"voice","body":null,"mediaId":null,"replyToId":null},"id":"o-1","type":"message.send"}"#,
            #"{"type":"receipt.delivered","data":{"conversationId":"C","seq":-0}}"#,
        ]
        for text in texts {
            let data = Data(text.utf8)
            let expected = try Self.codable(data).get()
            #expect(Self.hot(data) == expected, "\(text)")
        }
    }

    @Test func malformedOrUnusualInputIsLeftToCodableWhichGivesItsTypedError() throws {
        let send = try ClientFrame(.sendMessage(Self.sends[1]), id: "o-1").jsonData()
        let receipt = try ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_1", seq: 12))).jsonData()
        var inputs: [Data] = []
        for source in [send, receipt] {
            for length in 0..<source.count { inputs.append(source.prefix(length)) }
        }
        let sendText = String(decoding: send, as: UTF8.self)
        let receiptText = String(decoding: receipt, as: UTF8.self)
        let changes: [(String, String, String)] = [
            (receiptText, "\"seq\":12", "\"seq\":12.0"), (receiptText, "\"seq\":12", "\"seq\":012"),
            (receiptText, "\"seq\":12", "\"seq\":\"12\""), (receiptText, "\"seq\":12", "\"seq\":99999999999999999999"),
            (receiptText, "\"seq\":12", "\"seq\":null"), (receiptText, "\"seq\":12", "\"seq\":12,\"seq\":13"),
            (receiptText, "receipt.read", "receipt.unread"), (receiptText, "\"conversationId\":\"C_1\"", "\"conversationId\":7"),
            (sendText, "\"body\":\"/remind me\"", "\"body\":17"), (sendText, "\"conversationId\":\"C_1\"", "\"conversationId\":null"),
            (sendText, "\"conversationId\":\"C_1\"", "\"conversationId\":\"C_1\",\"extra\":true"),
            (sendText, "\"clientMessageId\":\"c-2\"", "\"clientMessageId\":\"c-\\u0032\""),
            (sendText, "\"clientMessageId\":\"c-2\"", "\"clientMessageId\":\"c-\u{1}2\""),
            (sendText, "\"id\":\"o-1\"", "\"id\":\"o-1\",\"replyTo\":\"x\""), (sendText, "\"id\":\"o-1\"", "\"id\":1"),
            (sendText, "message.send", "message.sent"), (sendText, "\"data\":{", "\"data\":[{"),
            (sendText, "\"data\":{", "\"data\":{\"x\":\"}\","),
        ]
        for (text, from, to) in changes {
            #expect(text.contains(from), "\(from)")
            inputs.append(Data(text.replacingOccurrences(of: from, with: to).utf8))
        }
        inputs.append(Data((sendText + " x").utf8))
        inputs.append(Data((sendText.dropLast() + ",}").utf8))
        inputs.append(Data(#"{"type":"message.send"}"#.utf8))
        inputs.append(Data(#"{"type":"message.send","data":{"conversationId":"C","type":"text"}}"#.utf8))
        inputs.append(Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]))
        for input in inputs {
            let codable = Self.codable(input)
            if let hot = Self.hot(input) {
                #expect(try codable.get() == hot, "\(String(decoding: input, as: UTF8.self))")
            }
            let frame = Result { () throws(FrameDecodingError) in try ClientFrame(jsonData: input) }
            #expect(frame == codable, "\(String(decoding: input, as: UTF8.self))")
        }
    }

    /// A payload of another type than the frame's, before or after it, is left to `Codable`.
    @Test func aPayloadThatDoesNotMatchTheTypeIsLeftToCodable() throws {
        let send = String(decoding: try WireCoding.encoder.encode(Self.sends[0]), as: UTF8.self)
        let position = #"{"conversationId":"C_1","seq":3}"#
        let texts = [
            #"{"data":\#(send),"type":"receipt.read"}"#, #"{"type":"receipt.read","data":\#(send)}"#,
            #"{"data":\#(position),"type":"message.send"}"#, #"{"type":"message.send","data":\#(position)}"#,
        ]
        for text in texts {
            #expect(Self.hot(Data(text.utf8)) == nil, "\(text)")
            #expect(throws: FrameDecodingError.self) { try ClientFrame(jsonData: Data(text.utf8)) }
        }
    }
}
