import Foundation
import Testing

@testable import ChatterBots

/// Decodes a server frame, re-encodes it and expects the same JSON value.
@discardableResult
func expectServerFrameRoundTrip(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ServerFrame {
    let frame = try ServerFrame(jsonData: Data(json.utf8))
    #expect(try jsonValue(frame.jsonData()) == jsonValue(json), sourceLocation: sourceLocation)
    return frame
}

@discardableResult
func expectClientFrameRoundTrip(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ClientFrame {
    let frame = try ClientFrame(jsonData: Data(json.utf8))
    #expect(try jsonValue(frame.jsonData()) == jsonValue(json), sourceLocation: sourceLocation)
    return frame
}

@Suite("Realtime frames of realtime-websocket.txt")
struct SeedFrameTests {
    @Test func sessionReadyFromTheSeed() throws {
        let frame = try expectServerFrameRoundTrip(
            """
            {
              "type": "session.ready",
              "data": {
                "userId": "01JB…",
                "deviceId": "01JB8ZD…",
                "serverTime": "2026-10-22T14:03:11.482Z",
                "heartbeatIntervalMs": 25000
              }
            }
            """)
        guard case .sessionReady(let ready) = frame.event else { Issue.record("not session.ready: \(frame)"); return }
        #expect(ready.userId == "01JB…" && ready.deviceId == "01JB8ZD…")
        #expect(ready.serverTime.iso8601 == "2026-10-22T14:03:11.482Z")
        #expect(ready.heartbeatInterval == .seconds(25))
        #expect(frame.id == nil && frame.replyTo == nil)
    }

    @Test func errorFrameFromTheSeed() throws {
        let frame = try expectServerFrameRoundTrip(
            #"{ "type": "error", "replyTo": "c-42", "data": { "code": "NOT_FRIENDS", "message": "You can only message friends." } }"#)
        #expect(frame.replyTo == "c-42")
        #expect(frame.event == .error(ChatterErrorBody(code: .notFriends, message: "You can only message friends.")))
    }

    @Test func messageSendFromTheSeed() throws {
        let frame = try expectClientFrameRoundTrip(
            """
            {
              "id": "c-42",
              "type": "message.send",
              "data": {
                "conversationId": "01JE…",
                "clientMessageId": "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55",
                "type": "text",
                "body": "See you at 8?",
                "mediaId": null,
                "replyToId": null
              }
            }
            """)
        #expect(frame.id == "c-42")
        #expect(frame.request == .sendMessage(MessageSend(
            conversationId: "01JE…", clientMessageId: "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55", content: .text("See you at 8?"))))
        #expect(frame.request.expectsReply)
    }

    @Test func messageAckFromTheSeed() throws {
        let frame = try expectServerFrameRoundTrip(
            """
            {
              "type": "message.ack",
              "replyTo": "c-42",
              "data": {
                "clientMessageId": "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55",
                "messageId": "01JF…",
                "conversationId": "01JE…",
                "seq": 42,
                "createdAt": "2026-10-22T14:20:11.482Z"
              }
            }
            """)
        #expect(frame.event == .messageAck(MessageAck(
            clientMessageId: "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55", messageId: "01JF…", conversationId: "01JE…", seq: 42,
            createdAt: try Timestamp(iso8601: "2026-10-22T14:20:11.482Z"))))
    }

    @Test func syncRequestFromTheSeed() throws {
        let frame = try expectClientFrameRoundTrip(
            #"{ "id": "c-1", "type": "sync.request", "data": { "conversations": { "01JE…": 40, "01JG…": 7 } } }"#)
        #expect(frame.request == .syncRequest(SyncRequest(conversations: ["01JE…": 40, "01JG…": 7])))
        try expectClientFrameRoundTrip(
            #"{ "id": "c-2", "type": "sync.request", "data": { "conversations": {}, "limitPerConversation": 100 } }"#)
    }

    @Test func syncResponseWithMessagesAndMembers() throws {
        let frame = try expectServerFrameRoundTrip(
            """
            {
              "type": "sync.response",
              "replyTo": "c-1",
              "data": {
                "conversations": {
                  "01JE…": {
                    "messages": [ \(Fixture.message(seq: 41)), \(Fixture.message(seq: 42)) ],
                    "hasMore": false,
                    "members": [ { "userId": "01JC…", "lastDeliveredSeq": 42, "lastReadSeq": 40 } ]
                  }
                }
              }
            }
            """)
        guard case .syncResponse(let response) = frame.event, let sync = response.conversations["01JE…"] else {
            Issue.record("not a sync.response for 01JE…: \(frame)")
            return
        }
        #expect(sync.messages.map(\.seq) == [41, 42] && !sync.hasMore)
        #expect(sync.members == [MemberWatermarks(userId: "01JC…", lastDeliveredSeq: 42, lastReadSeq: 40)])
    }

    @Test func clientFramesWithoutReplies() throws {
        #expect(try expectClientFrameRoundTrip(#"{ "id": "c-3", "type": "ping", "data": {} }"#).request == .ping)
        #expect(try expectClientFrameRoundTrip(#"{ "type": "receipt.delivered", "data": { "conversationId": "01JE…", "seq": 42 } }"#)
            .request == .receiptDelivered(ReceiptPosition(conversationId: "01JE…", seq: 42)))
        #expect(try expectClientFrameRoundTrip(#"{ "type": "receipt.read", "data": { "conversationId": "01JE…", "seq": 42 } }"#)
            .request == .receiptRead(ReceiptPosition(conversationId: "01JE…", seq: 42)))
        #expect(try expectClientFrameRoundTrip(#"{ "type": "typing.start", "data": { "conversationId": "01JE…" } }"#)
            .request == .typingStart(conversationId: "01JE…"))
        #expect(try expectClientFrameRoundTrip(#"{ "type": "typing.stop", "data": { "conversationId": "01JE…" } }"#)
            .request == .typingStop(conversationId: "01JE…"))
        #expect(!ClientRequest.typingStart(conversationId: "x").expectsReply)
    }

    @Test(arguments: [
        (#"{ "type": "pong", "data": {} }"#, "pong"),
        (#"{ "type": "message.new", "data": \#(Fixture.message(seq: 44, body: "Great!")) }"#, "message.new"),
        (#"{ "type": "message.updated", "data": \#(Fixture.deletedMessage) }"#, "message.updated"),
        (#"{ "type": "receipt.updated", "data": { "conversationId": "01JE…", "userId": "01JC…", "lastDeliveredSeq": 43, "lastReadSeq": 40 } }"#, "receipt.updated"),
        (#"{ "type": "typing", "data": { "conversationId": "01JE…", "userId": "01JC…", "isTyping": true } }"#, "typing"),
        (#"{ "type": "presence", "data": { "userId": "01JC…", "isOnline": false, "lastSeenAt": "2026-10-22T14:03:11.482Z" } }"#, "presence"),
        (#"{ "type": "presence.snapshot", "data": { "users": [ { "userId": "01JC…", "isOnline": true, "lastSeenAt": null } ] } }"#, "presence.snapshot"),
        (#"{ "type": "conversation.created", "data": \#(Fixture.directConversation) }"#, "conversation.created"),
        (#"{ "type": "conversation.updated", "data": \#(Fixture.conversation) }"#, "conversation.updated"),
        (#"{ "type": "conversation.removed", "data": { "conversationId": "01JE…" } }"#, "conversation.removed"),
        (#"{ "type": "friend_request.received", "data": \#(Fixture.friendRequest) }"#, "friend_request.received"),
        (#"{ "type": "friend_request.accepted", "data": { "requestId": "01JD…", "friend": \#(Fixture.friend) } }"#, "friend_request.accepted"),
        (#"{ "type": "friend_request.cancelled", "data": { "requestId": "01JD…" } }"#, "friend_request.cancelled"),
        (#"{ "type": "friend.removed", "data": { "userId": "01JC…" } }"#, "friend.removed"),
        (#"{ "type": "user.updated", "data": \#(Fixture.ben) }"#, "user.updated"),
        (#"{ "type": "error", "replyTo": "c-9", "data": { "code": "VALIDATION_FAILED", "message": "bad", "details": { "field": "body" } } }"#, "error"),
    ])
    func everyServerEventRoundTrips(json: String, type: String) throws {
        let frame = try expectServerFrameRoundTrip(json)
        #expect(frame.event.type == type)
        if case .unknown = frame.event { Issue.record("\(type) is a documented event") }
    }

    @Test func singleFieldEventsCarryTheirIdentifiers() throws {
        #expect(try ServerFrame(jsonData: Data(#"{"type":"conversation.removed","data":{"conversationId":"c1"}}"#.utf8)).event
            == .conversationRemoved(conversationId: "c1"))
        #expect(try ServerFrame(jsonData: Data(#"{"type":"friend_request.cancelled","data":{"requestId":"r1"}}"#.utf8)).event
            == .friendRequestCancelled(requestId: "r1"))
        #expect(try ServerFrame(jsonData: Data(#"{"type":"friend.removed","data":{"userId":"u1"}}"#.utf8)).event
            == .friendRemoved(userId: "u1"))
    }

    @Test func theSeedsSessionInOrder() throws {
        // The example session of the seed, as the frames a client sees and sends.
        let client: [ClientFrame] = [
            ClientFrame(.syncRequest(SyncRequest(conversations: ["01JE…": 40])), id: "c-1"),
            ClientFrame(.receiptRead(ReceiptPosition(conversationId: "01JE…", seq: 42))),
            ClientFrame(.sendMessage(MessageSend(conversationId: "01JE…", clientMessageId: .random(), content: .text("On my way"))), id: "c-2"),
        ]
        for frame in client {
            #expect(try ClientFrame(jsonData: frame.jsonData()) == frame)
        }
    }
}

@Suite("Unknown and malformed frames")
struct FrameDecodingErrorTests {
    @Test func unknownServerTypeIsKeptNotAnError() throws {
        let frame = try expectServerFrameRoundTrip(#"{ "type": "call.ringing", "data": { "callId": "k1", "video": true } }"#)
        #expect(frame.event == .unknown(type: "call.ringing", data: ["callId": "k1", "video": true]))
    }

    @Test func unknownTypeWithoutDataIsKept() throws {
        let frame = try expectServerFrameRoundTrip(#"{ "type": "server.draining" }"#)
        #expect(frame.event == .unknown(type: "server.draining", data: .null))
    }

    @Test func unknownClientTypeIsKeptNotAnError() throws {
        let frame = try expectClientFrameRoundTrip(#"{ "id": "c-7", "type": "call.start", "data": { "to": "u" } }"#)
        #expect(frame.request == .unknown(type: "call.start", data: ["to": "u"]))
    }

    @Test func theSeedsEmptyMessageSendNamesItsFirstMissingField() {
        let error = #expect(throws: FrameDecodingError.self) {
            try ClientFrame(jsonData: Data(#"{ "id": "c-42", "type": "message.send", "data": { } }"#.utf8))
        }
        #expect(error?.frameType == "message.send")
        #expect(error?.field == "data.conversationId")
        #expect(error?.reason == .missingValue)
    }

    @Test func wrongTypeDeepInsideDataNamesTheFieldPath() {
        let json = #"{ "type": "sync.response", "data": { "conversations": { "01JE…": { "messages": [ \#(Fixture.message(seq: 1).replacingOccurrences(of: "\"seq\": 1", with: "\"seq\": \"one\"")) ], "hasMore": false, "members": [] } } } }"#
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(json.utf8)) }
        #expect(error?.frameType == "sync.response")
        #expect(error?.field == "data.conversations.01JE….messages[0].seq")
        #expect(error?.reason == .wrongType)
    }

    /// Frames whose `seq` or watermark no conversation can have; arithmetic on them would overflow.
    static let outOfRangeSequenceNumbers: [(json: String, field: String)] = [
        (#"{ "type": "message.new", "data": \#(Fixture.message(seq: 1).replacingOccurrences(of: "\"seq\": 1", with: "\"seq\": 9223372036854775807")) }"#, "data.seq"),
        (#"{ "type": "message.updated", "data": \#(Fixture.message(seq: 1).replacingOccurrences(of: "\"seq\": 1", with: "\"seq\": -9223372036854775808")) }"#, "data.seq"),
        (#"{ "type": "message.ack", "data": { "clientMessageId": "c", "messageId": "m", "conversationId": "k", "seq": -1, "createdAt": "2026-10-22T14:20:11.482Z" } }"#, "data.seq"),
        (#"{ "type": "receipt.updated", "data": { "conversationId": "k", "userId": "u", "lastDeliveredSeq": 4, "lastReadSeq": 9223372036854775807 } }"#, "data.lastReadSeq"),
        (#"{ "type": "conversation.created", "data": { "id": "k", "type": "direct", "title": null, "avatarUrl": null, "members": [], "lastSeq": 9223372036854775807, "lastMessage": null, "muted": false, "createdAt": "2026-10-22T14:20:11.482Z", "updatedAt": "2026-10-22T14:20:11.482Z" } }"#, "data.lastSeq"),
        (#"{ "type": "sync.response", "data": { "conversations": { "k": { "messages": [], "hasMore": false, "members": [ { "userId": "u", "lastDeliveredSeq": -3, "lastReadSeq": 0 } ] } } } }"#, "data.conversations.k.members[0].lastDeliveredSeq"),
    ]

    @Test(arguments: 0..<outOfRangeSequenceNumbers.count)
    func aSequenceNumberNoConversationCanHaveIsAnInvalidValue(index: Int) {
        let (json, field) = Self.outOfRangeSequenceNumbers[index]
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(json.utf8)) }
        #expect(error?.field == field)
        #expect(error?.reason == .invalidValue)
    }

    @Test func aClientsReceiptOrSyncWithANegativeSequenceNumberIsAnInvalidValue() {
        let receipt = #expect(throws: FrameDecodingError.self) {
            try ClientFrame(jsonData: Data(#"{ "id": "r-1", "type": "receipt.read", "data": { "conversationId": "k", "seq": -1 } }"#.utf8))
        }
        #expect(receipt?.field == "data.seq" && receipt?.reason == .invalidValue)
        let sync = #expect(throws: FrameDecodingError.self) {
            try ClientFrame(jsonData: Data(#"{ "id": "s-1", "type": "sync.request", "data": { "conversations": { "k": -5 } } }"#.utf8))
        }
        #expect(sync?.field == "data.conversations" && sync?.reason == .invalidValue)
    }

    @Test func theLargestSequenceNumberStillDecodes() throws {
        let largest = SequenceNumber.range.upperBound
        let json = #"{ "type": "receipt.updated", "data": { "conversationId": "k", "userId": "u", "lastDeliveredSeq": \#(largest), "lastReadSeq": 0 } }"#
        let frame = try ServerFrame(jsonData: Data(json.utf8))
        #expect(frame.event == .receiptUpdated(ReceiptUpdate(conversationId: "k", userId: "u", lastDeliveredSeq: largest, lastReadSeq: 0)))
    }

    @Test func malformedTimestampIsAnInvalidValue() {
        let json = #"{ "type": "message.ack", "data": { "clientMessageId": "c", "messageId": "m", "conversationId": "k", "seq": 1, "createdAt": "yesterday" } }"#
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(json.utf8)) }
        #expect(error?.frameType == "message.ack")
        #expect(error?.field == "data.createdAt")
        #expect(error?.reason == .invalidValue)
    }

    @Test func missingDataOfAKnownTypeIsNamed() {
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(#"{ "type": "message.new" }"#.utf8)) }
        #expect(error?.frameType == "message.new" && error?.field == "data" && error?.reason == .missingValue)
    }

    @Test func textThatIsNotJSON() {
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data("hello {".utf8)) }
        #expect(error?.frameType == nil && error?.reason == .notJSON)
    }

    @Test func jsonThatIsNotAnObject() {
        let error = #expect(throws: FrameDecodingError.self) { try ClientFrame(jsonData: Data("[1, 2]".utf8)) }
        #expect(error?.frameType == nil && error?.reason == .notAnObject)
    }

    @Test func frameWithoutType() {
        let error = #expect(throws: FrameDecodingError.self) { try ClientFrame(jsonData: Data(#"{ "id": "c-1", "data": {} }"#.utf8)) }
        #expect(error?.frameType == nil && error?.field == "type" && error?.reason == .missingValue)
    }

    @Test func typeThatIsNotAString() {
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(#"{ "type": 7, "data": {} }"#.utf8)) }
        #expect(error?.field == "type" && error?.reason == .wrongType)
    }

    @Test func aBrokenReplyStillNamesTheRequestItAnswers() {
        let json = #"{ "type": "message.ack", "replyTo": "c-1", "data": { "clientMessageId": "c", "messageId": "m", "conversationId": "k", "createdAt": "2026-10-22T14:20:11.482Z" } }"#
        let error = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(json.utf8)) }
        #expect(error?.replyTo == "c-1" && error?.frameType == "message.ack" && error?.field == "data.seq")
        let untyped = #expect(throws: FrameDecodingError.self) { try ServerFrame(jsonData: Data(#"{ "replyTo": "c-3", "data": {} }"#.utf8)) }
        #expect(untyped?.replyTo == "c-3" && untyped?.field == "type")
    }

    @Test func aReplyToThatIsNotAStringNamesNoRequest() {
        let error = #expect(throws: FrameDecodingError.self) {
            try ServerFrame(jsonData: Data(#"{ "type": "pong", "replyTo": 1, "data": {} }"#.utf8))
        }
        #expect(error?.replyTo == nil && error?.field == "replyTo")
    }

    @Test func errorDescriptionSaysTypeAndField() {
        let error = FrameDecodingError(frameType: "message.new", field: "data.seq", reason: .wrongType, detail: "Expected Int")
        #expect(error.description == "'message.new' frame not decodable at 'data.seq' (wrongType): Expected Int")
        let reply = FrameDecodingError(frameType: "message.ack", replyTo: "c-4", field: "data.seq", reason: .missingValue, detail: "No value")
        #expect(reply.description == "'message.ack' frame replying to c-4 not decodable at 'data.seq' (missingValue): No value")
    }
}

@Suite("Frame throughput")
struct FrameThroughputTests {
    @Test func decodingTwoThousandMessageFrames() throws {
        // Prints figures and checks every frame decoded right; `chatter-bench` measures the release build at scale.
        let frames = (1...2_000).map { seq in
            Data(#"{ "type": "message.new", "data": \#(Fixture.message(seq: seq % 100, body: "message \(seq)")) }"#.utf8)
        }
        var bodies: [String] = []
        bodies.reserveCapacity(frames.count)
        let elapsed = try ContinuousClock().measure {
            for data in frames {
                if case .messageNew(let message) = try ServerFrame(jsonData: data).event { bodies.append(message.body ?? "") }
            }
        }
        #expect(bodies.count == 2_000 && bodies.last == "message 2000")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("ServerFrame: decoded 2,000 message.new frames in \(elapsed) (\(Int(2_000 / seconds)) frames/s, this build)")
    }
}
