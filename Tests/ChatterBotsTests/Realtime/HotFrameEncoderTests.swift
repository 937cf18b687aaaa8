@testable import ChatterBots
import Foundation
import Testing

/// The hand-written encoder of receipts, pings and typing frames writes the same JSON object as the `Codable`
/// path, or leaves the frame to it.
@Suite("Hot frame encoding")
struct HotFrameEncoderTests {
    static let frames: [ClientFrame] = [
        ClientFrame(.ping, id: "c-1"),
        ClientFrame(.ping),
        ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_1", seq: 42))),
        ClientFrame(.receiptDelivered(ReceiptPosition(conversationId: "C_2", seq: 0))),
        ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_3", seq: 9_007_199_254_740_993)), id: "r-7"),
        ClientFrame(.receiptDelivered(ReceiptPosition(conversationId: "C/slash~", seq: -1))),
        ClientFrame(.typingStart(conversationId: "C_1")),
        ClientFrame(.typingStop(conversationId: "C_1"), id: "t 1"),
    ]

    static func object(_ data: Data) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
    }

    @Test func writesTheSameJSONObjectAsCodable() throws {
        for frame in Self.frames {
            let text = try #require(HotFrameEncoder.text(frame))
            #expect(try Self.object(Data(text.utf8)) == Self.object(frame.jsonData()))
            #expect(try ClientFrame(jsonData: Data(text.utf8)) == frame)
        }
    }

    @Test func leavesStringsThatNeedEscapingToCodable() {
        let escaped: [ClientFrame] = [
            ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_\"q\"", seq: 1))),
            ClientFrame(.receiptDelivered(ReceiptPosition(conversationId: "C_\\", seq: 1))),
            ClientFrame(.typingStart(conversationId: "C_\n")),
            ClientFrame(.typingStop(conversationId: "C_é")),
            ClientFrame(.ping, id: "id\u{7F}"),
        ]
        for frame in escaped {
            #expect(HotFrameEncoder.text(frame) == nil)
        }
    }

    @Test func leavesMessageSendSyncAndUnknownFramesToCodable() {
        let others: [ClientFrame] = [
            ClientFrame(.sendMessage(MessageSend(conversationId: "C_1", clientMessageId: "cm-1", content: .text("hi"))), id: "c-2"),
            ClientFrame(.syncRequest(SyncRequest(conversations: [:])), id: "c-3"),
            ClientFrame(.unknown(type: "custom", data: .null)),
        ]
        for frame in others {
            #expect(HotFrameEncoder.text(frame) == nil)
        }
    }
}
