@testable import ChatterBots
import Foundation
import Testing

/// The hand-written encoder of receipts, pings, typing, `message.new` and `message.ack` frames writes the same JSON
/// object as the `Codable` path, or leaves the frame to it.
@Suite("Hot frame encoding")
struct HotFrameEncoderTests {
    static let frames: [ClientFrame] = [
        ClientFrame(.ping, id: "c-1"),
        ClientFrame(.ping),
        ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_1", seq: 42))),
        ClientFrame(.receiptDelivered(ReceiptPosition(conversationId: "C_2", seq: 0))),
        ClientFrame(.receiptRead(ReceiptPosition(conversationId: "C_3", seq: 9_007_199_254_740_993)), id: "r-7"),
        ClientFrame(.receiptDelivered(ReceiptPosition(conversationId: "C/slash~", seq: 7))),
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

    static let message = Message(
        id: "01JMSG0000000000000000000A", conversationId: "01JCONV000000000000000000B", seq: 17, senderId: "01JUSER",
        clientMessageId: "5d1c0b6e-8f3a-7a10-9c4e-000000000001", kind: .text, body: "echo: hi",
        createdAt: Timestamp(millisecondsSince1970: 1_792_677_791_482))

    static let serverFrames: [ServerFrame] = {
        var edited = message
        edited.editedAt = Timestamp(millisecondsSince1970: 1_792_677_800_000)
        var deleted = message
        deleted.body = nil
        deleted.deletedAt = Timestamp(millisecondsSince1970: 1_792_677_900_001)
        var photo = message
        photo.kind = .photo
        photo.mediaId = "01JMEDIA"
        photo.replyToId = "01JMSG0000000000000000000Z"
        let ack = MessageAck(
            clientMessageId: "cm-1", messageId: "01JMSG0000000000000000000A", conversationId: "01JCONV000000000000000000B",
            seq: 9_007_199_254_740_993, createdAt: Timestamp(millisecondsSince1970: 0))
        return [
            ServerFrame(.messageNew(message)), ServerFrame(.messageNew(edited)), ServerFrame(.messageNew(deleted)),
            ServerFrame(.messageNew(photo), id: "s-1"), ServerFrame(.messageAck(ack), replyTo: "o-42"), ServerFrame(.messageAck(ack)),
        ]
    }()

    @Test func writesMessageNewAndAckAsCodableDoes() throws {
        for frame in Self.serverFrames {
            let text = try #require(HotFrameEncoder.text(frame))
            #expect(try Self.object(Data(text.utf8)) == Self.object(frame.jsonData()))
            #expect(try ServerFrame(jsonData: Data(text.utf8)) == frame)
        }
    }

    @Test func leavesReactionsEscapesAndOtherServerEventsToCodable() {
        var reacted = Self.message
        reacted.reactions = [Message.Reaction(emoji: "👍", userIds: ["01JUSER"])]
        var quoted = Self.message
        quoted.body = "say \"hi\""
        var accented = Self.message
        accented.body = "café"
        let others: [ServerFrame] = [
            ServerFrame(.messageNew(reacted)), ServerFrame(.messageNew(quoted)), ServerFrame(.messageNew(accented)),
            ServerFrame(.messageUpdated(Self.message)), ServerFrame(.pong, replyTo: "c-1"),
        ]
        for frame in others {
            #expect(HotFrameEncoder.text(frame) == nil)
        }
    }
}
