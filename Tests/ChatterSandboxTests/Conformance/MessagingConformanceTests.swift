import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// message.send, message.new fan-out, receipts and sync of realtime-websocket.txt, over loopback sockets.
@Suite("Realtime conformance: messages, receipts, sync")
struct MessagingConformanceTests {
    @Test func aRepeatedClientMessageIdGetsTheSameAckAndStoresOneMessage() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let client = try await fixture.connect(fixture.ana)
            let key = ClientMessageID.random()
            let first = try await fixture.send("See you at 8?", in: chat, over: client, key: key, id: "c-1")
            let second = try await fixture.send("See you at 8?", in: chat, over: client, key: key, id: "c-2")
            #expect(first == second)
            let page = try await fixture.rest(fixture.ana).messages(in: chat, afterSeq: 0)
            #expect(page.messages.map(\.id) == [first.messageId])
            #expect(page.messages.first?.clientMessageId == key)
            await client.close()
        }
    }

    @Test func messageNewReachesTheSendersOtherDevicesAndMembersButNotTheSendingDevice() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let phone = try await fixture.connect(fixture.ana)
            let laptop = try await fixture.connect(try await fixture.signInNewDevice(fixture.ana, name: "laptop"))
            let ben = try await fixture.connect(fixture.ben)
            _ = try await laptop.framesBeforePong()
            _ = try await phone.framesBeforePong()

            let ack = try await fixture.send("On my way", in: chat, over: phone)
            let onLaptop = try await laptop.next { $0.isMessageNew }.frame.event.message
            let onBen = try await ben.next { $0.isMessageNew }.frame.event.message
            #expect(onLaptop?.id == ack.messageId)
            #expect(onBen?.id == ack.messageId && onBen?.body == "On my way" && onBen?.seq == ack.seq)
            let phoneFrames = try await phone.framesBeforePong()
            #expect(!phoneFrames.contains { $0.event.isMessageNew }, "the sending device gets only the ack")
            for client in [phone, laptop, ben] { await client.close() }
        }
    }

    @Test func messageNewReachesEveryDeviceInSeqOrderWhateverTheConcurrencyOfSenders() async throws {
        try await SandboxFixture.run { fixture in
            let group = try await fixture.rest(fixture.ana).createGroup(
                title: "Busy", memberIds: [fixture.ben.user.id, fixture.cleo.user.id]).id
            let laptop = try await fixture.connect(try await fixture.signInNewDevice(fixture.ana, name: "laptop"))
            let ana = try await fixture.connect(fixture.ana)
            let ben = try await fixture.connect(fixture.ben)
            let cleo = fixture.rest(fixture.cleo)
            let perSender = 40

            try await withThrowingTaskGroup(of: Void.self) { senders in
                for (name, client) in [("ana", ana), ("ben", ben)] {
                    senders.addTask {
                        for index in 0..<perSender {
                            try await client.send(SandboxFixture.text("\(name) \(index)", in: group), id: "\(name)-\(index)")
                        }
                    }
                }
                senders.addTask {
                    for index in 0..<perSender {
                        _ = try await cleo.postMessage(.text("cleo \(index)"), clientMessageId: .random(), in: group)
                    }
                }
                try await senders.waitForAll()
            }

            var seqs: [Int] = []
            while seqs.count < 3 * perSender {
                let (frame, _) = try await laptop.next { $0.isMessageNew }
                seqs.append(frame.event.message?.seq ?? 0)
            }
            #expect(seqs == Array(1...(3 * perSender)), "message.new out of seq order")
            for client in [laptop, ana, ben] { await client.close() }
        }
    }

    @Test func theSendersAckArrivesBeforeAnAnswerSentTheMomentTheMessageArrived() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            let ben = try await fixture.connect(fixture.ben)
            _ = try await ana.framesBeforePong()
            _ = try await ben.framesBeforePong()
            let rounds = 30
            // Ben answers each message as soon as it reaches him, as a bot does.
            let answers = Task {
                for index in 0..<rounds {
                    _ = try await ben.next { $0.isMessageNew }
                    try await ben.send(SandboxFixture.text("re \(index)", in: chat), id: "ben-\(index)")
                }
            }
            var overtaken: [Int] = []
            for index in 0..<rounds {
                try await ana.send(SandboxFixture.text("question \(index)", in: chat), id: "ana-\(index)")
                let (frame, skipped) = try await ana.next { event in
                    if case .messageAck = event { true } else { false }
                }
                #expect(frame.replyTo == "ana-\(index)")
                if skipped.contains(where: { $0.event.isMessageNew }) { overtaken.append(index) }
                _ = try await ana.next { $0.isMessageNew }
            }
            try await answers.value
            #expect(overtaken.isEmpty, "the answers overtook the acks of rounds \(overtaken)")
            for client in [ana, ben] { await client.close() }
        }
    }

    @Test func sendingToAConversationOfOthersIsNotFoundWithReplyTo() async throws {
        try await SandboxFixture.run { fixture in
            let theirs = try await fixture.direct(fixture.ben, fixture.nora).id
            let client = try await fixture.connect(fixture.ana)
            try await client.send(SandboxFixture.text("hi", in: theirs), id: "c-5")
            let reply = try await client.next()
            #expect(reply.replyTo == "c-5")
            guard case .error(let error) = reply.event else {
                Issue.record("expected an error, got \(reply)")
                return
            }
            #expect(error.code == .notFound)
            await client.close()
        }
    }

    @Test func receiptsAreFannedOutToMembersAndTheReadersOtherDevices() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            let benPhone = try await fixture.connect(fixture.ben)
            let benLaptop = try await fixture.connect(try await fixture.signInNewDevice(fixture.ben, name: "laptop"))
            try await fixture.send("one", in: chat, over: ana)
            try await fixture.send("two", in: chat, over: ana)

            try await benPhone.send(.receiptRead(ReceiptPosition(conversationId: chat, seq: 2)))
            let expected = ServerEvent.receiptUpdated(
                ReceiptUpdate(conversationId: chat, userId: fixture.ben.user.id, lastDeliveredSeq: 2, lastReadSeq: 2))
            #expect(try await ana.next { $0.isReceipt }.frame.event == expected)
            #expect(try await benLaptop.next { $0.isReceipt }.frame.event == expected)
            for client in [ana, benPhone, benLaptop] { await client.close() }
        }
    }

    @Test func receiptsOnlyMoveForward() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ana = try await fixture.connect(fixture.ana)
            let ben = try await fixture.connect(fixture.ben)
            for body in ["one", "two", "three"] { try await fixture.send(body, in: chat, over: ana) }
            try await ben.send(.receiptRead(ReceiptPosition(conversationId: chat, seq: 3)))
            _ = try await ana.next { $0.isReceipt }

            // A receipt behind the watermark changes nothing; the typing event after it proves ana saw no receipt.
            try await ben.send(.receiptRead(ReceiptPosition(conversationId: chat, seq: 1)))
            try await ben.send(.receiptDelivered(ReceiptPosition(conversationId: chat, seq: 2)))
            try await ben.send(.typingStart(conversationId: chat))
            let (_, skipped) = try await ana.next { $0.isTyping }
            #expect(!skipped.contains { $0.event.isReceipt }, "a backward receipt must not be announced: \(skipped)")
            let member = try await fixture.rest(fixture.ana).conversation(chat).members.first { $0.userId == fixture.ben.user.id }
            #expect(member?.lastReadSeq == 3 && member?.lastDeliveredSeq == 3)
            await ana.close()
            await ben.close()
        }
    }

    @Test func syncReturnsNamedConversationsWithLimitAndHasMoreAndLeavesOthersOut() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let group = try await fixture.rest(fixture.ana).createGroup(title: "Trip", memberIds: [fixture.ben.user.id]).id
            let ana = try await fixture.connect(fixture.ana)
            for body in ["1", "2", "3", "4"] { try await fixture.send(body, in: chat, over: ana) }
            try await fixture.send("group", in: group, over: ana)

            let ben = try await fixture.connect(fixture.ben)
            try await ben.send(.syncRequest(SyncRequest(conversations: [chat: 1], limitPerConversation: 2)), id: "c-1")
            let (reply, _) = try await ben.next { if case .syncResponse = $0 { true } else { false } }
            #expect(reply.replyTo == "c-1")
            guard case .syncResponse(let response) = reply.event else { return }
            #expect(Set(response.conversations.keys) == [chat], "conversations the client did not name are left out")
            let sync = try #require(response.conversations[chat])
            #expect(sync.messages.map(\.seq) == [2, 3])
            #expect(sync.hasMore)
            #expect(Set(sync.members.map(\.userId)) == [fixture.ana.user.id, fixture.ben.user.id])

            try await ben.send(.syncRequest(SyncRequest(conversations: [chat: 3, group: 0])), id: "c-2")
            let (rest, _) = try await ben.next { if case .syncResponse = $0 { true } else { false } }
            guard case .syncResponse(let all) = rest.event else { return }
            #expect(all.conversations[chat]?.messages.map(\.seq) == [4])
            #expect(all.conversations[chat]?.hasMore == false)
            #expect(all.conversations[group]?.messages.map(\.body) == ["group"])
            await ana.close()
            await ben.close()
        }
    }

    @Test func syncLeavesOutConversationsTheCallerIsNotIn() async throws {
        try await SandboxFixture.run { fixture in
            let theirs = try await fixture.direct(fixture.ben, fixture.nora).id
            let ana = try await fixture.connect(fixture.ana)
            try await ana.send(.syncRequest(SyncRequest(conversations: [theirs: 0])), id: "c-1")
            let (reply, _) = try await ana.next { if case .syncResponse = $0 { true } else { false } }
            #expect(reply.event == .syncResponse(SyncResponse(conversations: [:])))
            await ana.close()
        }
    }
}
