import ChatterBots
import ChatterSandbox
import Foundation
import Testing

@Suite("Messages, receipts and sync")
struct MessageTests {
    /// Ana and Ben, friends, with their direct conversation.
    private func pair(_ harness: ServiceHarness) async throws -> (TestAccount, TestAccount, Conversation) {
        let accounts = try await harness.friends("ana", "ben")
        return (accounts[0], accounts[1], try await harness.direct(accounts[0], accounts[1]))
    }

    @Test func sequenceNumbersStartAtOneAndHaveNoGapsUnderConcurrentSends() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask { try await harness.send(index.isMultiple(of: 2) ? ana : ben, "m\(index)", in: direct.id) }
            }
            try await group.waitForAll()
        }

        let page = try await harness.service.messages(ana.caller, direct.id, .after(seq: 0), limit: 100)
        #expect(page.messages.map(\.seq) == Array(1...30))
        #expect(try await harness.service.conversation(ben.caller, direct.id).lastSeq == 30)
    }

    @Test func aResentClientMessageIdReturnsTheSameMessageAndCausesNothing() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        let body = MessagePostBody(clientMessageId: "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55", content: .text("See you at 8?"))

        let first = try await harness.service.postMessage(ana.caller, direct.id, body)
        let again = try await harness.service.postMessage(ana.caller, direct.id, body)

        #expect(first.value.isNew)
        #expect(!again.value.isNew)
        #expect(again.value.value == first.value.value)
        #expect(again.deliveries.isEmpty)
        #expect(try await harness.service.conversation(ana.caller, direct.id).lastSeq == 1)
    }

    @Test func messageSendAcksTheSameMessageForEveryResend() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        let send = MessageSend(conversationId: direct.id, clientMessageId: "c-1", content: .text("On my way"))

        let ack = try await harness.service.sendMessage(ana.caller, send)
        let resent = try await harness.service.sendMessage(ana.caller, send)

        #expect(resent.value == ack.value)
        #expect(ack.value.clientMessageId == "c-1")
        #expect(ack.value.seq == 1)
        #expect(ack.value.conversationId == direct.id)
        #expect(ack.deliveries.count == 1)
        #expect(resent.deliveries.isEmpty)
    }

    @Test func theSameClientMessageIdFromAnotherSenderIsAnotherMessage() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        let a = try await harness.send(ana, "hi", in: direct.id, key: "k")
        let b = try await harness.send(ben, "hi", in: direct.id, key: "k")
        #expect(a.id != b.id)
        #expect(b.seq == 2)
    }

    @Test func aClientMessageIdAlreadyUsedInAnotherConversationIsRefusedAndStoresNothing() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let withBen = try await harness.direct(accounts[0], accounts[1])
        let withCai = try await harness.direct(accounts[0], accounts[2])
        let first = try await harness.send(accounts[0], "for ben", in: withBen.id, key: "k")

        await expectAPIError(.validationFailed, field: "clientMessageId") {
            try await harness.send(accounts[0], "for cai", in: withCai.id, key: "k")
        }
        #expect(try await harness.service.conversation(accounts[0].caller, withCai.id).lastSeq == 0)
        #expect(try await harness.send(accounts[0], "for ben", in: withBen.id, key: "k") == first, "the key still names the first message")
    }

    @Test func idempotencyHoldsForTwentyFourHoursAndThenTheKeyIsForgotten() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        let first = try await harness.send(ana, "hi", in: direct.id, key: "k")

        await harness.clock.advance(by: .seconds(24 * 3600))
        #expect(try await harness.send(ana, "hi", in: direct.id, key: "k") == first)
        await harness.clock.advance(by: .seconds(1))
        let later = try await harness.send(ana, "hi", in: direct.id, key: "k")
        #expect(later.id != first.id)
        #expect(later.seq == 2)
    }

    @Test func messageNewGoesToEveryMemberDeviceExceptTheSendingOneWithAPushTrigger() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let group = try await harness.group(accounts[0], "Trip", [accounts[1], accounts[2]])

        let outcome = try await harness.service.postMessage(
            accounts[1].caller, group.id, MessagePostBody(clientMessageId: "x", content: .text("Hello")))

        let message = outcome.value.value
        #expect(outcome.deliveries == [
            SandboxDelivery(
                event: .messageNew(message), recipients: accounts.map(\.id), excludedDevice: accounts[1].session.deviceId,
                pushTrigger: .newMessage(message))
        ])
        #expect(message.senderId == accounts[1].id)
        #expect(message.kind == .text)
        #expect(message.body == "Hello")
        #expect(message.clientMessageId == "x")
        #expect(message.reactions.isEmpty)
        #expect(message.editedAt == nil && message.deletedAt == nil)
    }

    @Test func aBodyHasOneTo4096Characters() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        let longest = String(repeating: "é", count: 4096)
        #expect(try await harness.send(ana, longest, in: direct.id).body == longest)

        await expectAPIError(.validationFailed, field: "body") {
            try await harness.send(ana, String(repeating: "a", count: 4097), in: direct.id)
        }
        await expectAPIError(.validationFailed, field: "body") { try await harness.send(ana, "", in: direct.id) }
        await expectAPIError(.validationFailed, field: "body") { try await harness.send(ana, "  \n ", in: direct.id) }
        #expect(try await harness.service.conversation(ana.caller, direct.id).lastSeq == 1)
    }

    @Test func onlyTextAndMediaKindsCanBeSentAndMediaNeedsAnUpload() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        func post(_ content: MessageContent) async throws -> Message {
            try await harness.service.postMessage(ana.caller, direct.id, MessagePostBody(clientMessageId: .random(), content: content)).value.value
        }
        await expectAPIError(.validationFailed, field: "type") { try await post(MessageContent(kind: .system, body: "joined")) }
        await expectAPIError(.validationFailed, field: "type") { try await post(MessageContent(kind: .unrecognized("poll"), body: "?")) }
        await expectAPIError(.validationFailed, field: "mediaId") { try await post(MessageContent(kind: .photo, body: nil)) }
        await expectAPIError(.validationFailed, field: "mediaId") { try await post(.media(.photo, "01NOSUCHMEDIA")) }
        await expectAPIError(.validationFailed, field: "mediaId") {
            try await post(MessageContent(kind: .text, body: "hi", mediaId: "01NOSUCHMEDIA"))
        }

        let audio = try await harness.service.uploadMedia(ana.caller, bytes: [1, 2, 3], contentType: "audio/mp4")
        await expectAPIError(.validationFailed, field: "mediaId") { try await post(.media(.photo, audio)) }
        await expectAPIError(.validationFailed, field: "mediaId") { try await post(.media(.document, audio)) }
        let pdf = try await harness.service.uploadMedia(ana.caller, bytes: [0x25, 0x50], contentType: "application/pdf")
        #expect(try await post(.media(.document, pdf)).kind == .document)
        let voice = try await post(.media(.voice, audio, caption: "listen"))
        #expect(voice.mediaId == audio)
        #expect(voice.body == "listen")
        #expect(voice.kind == .voice)
    }

    @Test func aMessageCannotCarryAnotherUsersUpload() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        let bens = try await harness.service.uploadMedia(ben.caller, bytes: [0xff, 0xd8], contentType: "image/jpeg")

        await expectAPIError(.validationFailed, field: "mediaId") {
            try await harness.service.postMessage(ana.caller, direct.id, MessagePostBody(clientMessageId: "p", content: .media(.photo, bens)))
        }
        #expect(try await harness.service.conversation(ana.caller, direct.id).lastSeq == 0)
        let own = try await harness.service.postMessage(ben.caller, direct.id, MessagePostBody(clientMessageId: "p", content: .media(.photo, bens)))
        #expect(own.value.value.mediaId == bens)
    }

    @Test func aReplyMustQuoteAMessageOfTheSameConversation() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let direct = try await harness.direct(accounts[0], accounts[1])
        let other = try await harness.direct(accounts[0], accounts[2])
        let elsewhere = try await harness.send(accounts[0], "elsewhere", in: other.id)
        let original = try await harness.send(accounts[1], "question", in: direct.id)

        await expectAPIError(.validationFailed, field: "replyToId") {
            try await harness.service.postMessage(
                accounts[0].caller, direct.id, MessagePostBody(clientMessageId: .random(), content: .text("no", replyingTo: elsewhere.id)))
        }
        let reply = try await harness.service.postMessage(
            accounts[0].caller, direct.id, MessagePostBody(clientMessageId: .random(), content: .text("yes", replyingTo: original.id)))
        #expect(reply.value.value.replyToId == original.id)
    }

    @Test func aFormerFriendCannotBeMessagedInTheirDirectConversation() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        _ = try await harness.service.removeFriend(ben.caller, ana.id)

        await expectAPIError(.notFriends) { try await harness.send(ana, "still there?", in: direct.id) }
        await expectAPIError(.notFriends) {
            try await harness.service.sendMessage(ana.caller, MessageSend(conversationId: direct.id, clientMessageId: "z", content: .text("?")))
        }
        #expect(try await harness.service.conversation(ana.caller, direct.id).lastSeq == 0)
    }

    @Test func groupsStillWorkAfterMembersStopBeingFriends() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let group = try await harness.group(accounts[0], "Trip", [accounts[1], accounts[2]])
        _ = try await harness.service.removeFriend(accounts[1].caller, accounts[2].id)
        #expect(try await harness.send(accounts[1], "hi all", in: group.id).seq == 1)
    }

    @Test func onlyTheSenderEditsAndEveryMemberHearsOfIt() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        let message = try await harness.send(ana, "See you at 8?", in: direct.id)
        await harness.clock.advance(by: .seconds(5))

        await expectAPIError(.forbidden) {
            try await harness.service.editMessage(ben.caller, direct.id, message.id, MessageEditBody(body: "no"))
        }
        let edited = try await harness.service.editMessage(ana.caller, direct.id, message.id, MessageEditBody(body: "See you at 9?"))

        #expect(edited.value.body == "See you at 9?")
        #expect(edited.value.editedAt == Timestamp(harness.clock.now))
        #expect(edited.value.seq == message.seq)
        #expect(edited.deliveries == [SandboxDelivery(event: .messageUpdated(edited.value), recipients: [ana.id, ben.id])])
        await expectAPIError(.validationFailed, field: "body") {
            try await harness.service.editMessage(ana.caller, direct.id, message.id, MessageEditBody(body: String(repeating: "x", count: 4097)))
        }
    }

    @Test func deletingForEveryoneNullsBodyAndMediaAndKeepsTheSeq() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        let photo = try await harness.service.uploadMedia(ana.caller, bytes: [0xff, 0xd8], contentType: "image/jpeg")
        let message = try await harness.service.postMessage(
            ana.caller, direct.id, MessagePostBody(clientMessageId: .random(), content: .media(.photo, photo, caption: "us"))).value.value
        _ = try await harness.service.addReaction(ben.caller, direct.id, message.id, emoji: "👍")

        await expectAPIError(.forbidden) { try await harness.service.deleteMessage(ben.caller, direct.id, message.id) }
        let deleted = try await harness.service.deleteMessage(ana.caller, direct.id, message.id)

        #expect(deleted.value.deletedAt != nil)
        #expect(deleted.value.body == nil)
        #expect(deleted.value.mediaId == nil)
        #expect(deleted.value.reactions.isEmpty)
        #expect(deleted.value.seq == 1)
        #expect(deleted.deliveries == [SandboxDelivery(event: .messageUpdated(deleted.value), recipients: [ana.id, ben.id])])
        let again = try await harness.service.deleteMessage(ana.caller, direct.id, message.id)
        #expect(again.value == deleted.value)
        #expect(again.deliveries.isEmpty)
        await expectAPIError(.forbidden) {
            try await harness.service.editMessage(ana.caller, direct.id, message.id, MessageEditBody(body: "undo"))
        }
    }

    @Test func reactionsGroupUsersByEmojiInTheOrderTheyCame() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        let message = try await harness.send(ana, "Party!", in: direct.id)

        _ = try await harness.service.addReaction(ben.caller, direct.id, message.id, emoji: "🎉")
        _ = try await harness.service.addReaction(ana.caller, direct.id, message.id, emoji: "👍🏽")
        let third = try await harness.service.addReaction(ana.caller, direct.id, message.id, emoji: "🎉")

        #expect(third.value.reactions == [
            Message.Reaction(emoji: "🎉", userIds: [ben.id, ana.id]), Message.Reaction(emoji: "👍🏽", userIds: [ana.id]),
        ])
        #expect(third.deliveries == [SandboxDelivery(event: .messageUpdated(third.value), recipients: [ana.id, ben.id])])
        let repeated = try await harness.service.addReaction(ana.caller, direct.id, message.id, emoji: "🎉")
        #expect(repeated.deliveries.isEmpty)
        #expect(repeated.value == third.value)

        let removed = try await harness.service.removeReaction(ben.caller, direct.id, message.id, emoji: "🎉")
        #expect(removed.value.reactions == [
            Message.Reaction(emoji: "👍🏽", userIds: [ana.id]), Message.Reaction(emoji: "🎉", userIds: [ana.id]),
        ], "emojis follow their oldest remaining reaction")
        #expect(removed.deliveries.count == 1)
        await expectAPIError(.validationFailed, field: "emoji") {
            try await harness.service.addReaction(ana.caller, direct.id, message.id, emoji: "ab")
        }
    }

    @Test func pagesGoForwardAfterSeqAndBackwardBeforeSeqWithHasMore() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        for index in 1...7 { try await harness.send(ana, "m\(index)", in: direct.id) }

        let forward = try await harness.service.messages(ana.caller, direct.id, .after(seq: 2), limit: 3)
        #expect(forward.messages.map(\.seq) == [3, 4, 5])
        #expect(forward.hasMore)
        let end = try await harness.service.messages(ana.caller, direct.id, .after(seq: 5), limit: 3)
        #expect(end.messages.map(\.seq) == [6, 7])
        #expect(!end.hasMore)
        let backward = try await harness.service.messages(ana.caller, direct.id, .before(seq: 6), limit: 3)
        #expect(backward.messages.map(\.seq) == [5, 4, 3])
        #expect(backward.hasMore)
        let start = try await harness.service.messages(ana.caller, direct.id, .before(seq: 3), limit: 3)
        #expect(start.messages.map(\.seq) == [2, 1])
        #expect(!start.hasMore)
        let latest = try await harness.service.messages(ana.caller, direct.id, .latest, limit: nil)
        #expect(latest.messages.map(\.seq) == Array((1...7).reversed()))
    }

    @Test func aPageHoldsAtMost500Messages() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, _, direct) = try await pair(harness)
        _ = try await harness.service.messages(ana.caller, direct.id, .after(seq: 0), limit: 500)
        await expectAPIError(.validationFailed, field: "limit") {
            try await harness.service.messages(ana.caller, direct.id, .after(seq: 0), limit: 501)
        }
        await expectAPIError(.validationFailed, field: "limit") {
            try await harness.service.messages(ana.caller, direct.id, .after(seq: 0), limit: 0)
        }
        await expectAPIError(.validationFailed, field: "afterSeq") {
            try await harness.service.messages(ana.caller, direct.id, .after(seq: -1), limit: nil)
        }
    }

    @Test func syncAnswersOnlyNamedConversationsTheCallerIsIn() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])
        let direct = try await harness.direct(ana, ben)
        let notMine = try await harness.direct(ben, cai)
        let unnamed = try await harness.direct(ana, cai)
        for index in 1...5 { try await harness.send(ben, "m\(index)", in: direct.id) }
        try await harness.send(ben, "private", in: notMine.id)
        try await harness.send(cai, "unasked", in: unnamed.id)
        _ = try await harness.service.markRead(ana.caller, conversationId: direct.id, seq: 2)

        let response = try await harness.service.sync(
            ana.caller, SyncRequest(conversations: [direct.id: 2, notMine.id: 0], limitPerConversation: 2))

        #expect(Set(response.conversations.keys) == [direct.id])
        let sync = try #require(response.conversations[direct.id])
        #expect(sync.messages.map(\.seq) == [3, 4])
        #expect(sync.hasMore)
        #expect(sync.members == [
            MemberWatermarks(userId: ana.id, lastDeliveredSeq: 2, lastReadSeq: 2),
            MemberWatermarks(userId: ben.id, lastDeliveredSeq: 0, lastReadSeq: 0),
        ])
    }

    @Test func syncDefaultsTo100MessagesAndCapsTheLimit() async throws {
        let harness = try await ServiceHarness.make(.testing { $0.maxSyncLimit = 120 })
        let (ana, ben, direct) = try await pair(harness)
        for index in 1...130 { try await harness.send(ben, "m\(index)", in: direct.id) }

        let byDefault = try await harness.service.sync(ana.caller, SyncRequest(conversations: [direct.id: 0]))
        #expect(byDefault.conversations[direct.id]?.messages.count == 100)
        let capped = try await harness.service.sync(ana.caller, SyncRequest(conversations: [direct.id: 0], limitPerConversation: 10_000))
        #expect(capped.conversations[direct.id]?.messages.count == 120)
        #expect(capped.conversations[direct.id]?.hasMore == true)
        await expectAPIError(.validationFailed, field: "limitPerConversation") {
            try await harness.service.sync(ana.caller, SyncRequest(conversations: [direct.id: 0], limitPerConversation: 0))
        }
    }

    @Test func watermarksOnlyMoveForwardAndAreCappedAtTheLastSeq() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        for index in 1...4 { try await harness.send(ben, "m\(index)", in: direct.id) }

        let delivered = try await harness.service.markDelivered(ana.caller, conversationId: direct.id, seq: 3)
        #expect(delivered.deliveries == [
            SandboxDelivery(
                event: .receiptUpdated(ReceiptUpdate(conversationId: direct.id, userId: ana.id, lastDeliveredSeq: 3, lastReadSeq: 0)),
                recipients: [ana.id, ben.id], excludedDevice: ana.session.deviceId)
        ])
        #expect(try await harness.service.markDelivered(ana.caller, conversationId: direct.id, seq: 1).deliveries.isEmpty)
        let capped = try await harness.service.markDelivered(ana.caller, conversationId: direct.id, seq: 99)
        #expect(capped.deliveries.first?.event == .receiptUpdated(
            ReceiptUpdate(conversationId: direct.id, userId: ana.id, lastDeliveredSeq: 4, lastReadSeq: 0)))

        let member = try await harness.service.conversation(ben.caller, direct.id).members.first { $0.userId == ana.id }
        #expect(member == Member(userId: ana.id, role: .member, lastDeliveredSeq: 4, lastReadSeq: 0))
        await expectAPIError(.validationFailed, field: "seq") {
            try await harness.service.markRead(ana.caller, conversationId: direct.id, seq: -1)
        }
    }

    @Test func readingImpliesDelivery() async throws {
        let harness = try await ServiceHarness.make()
        let (ana, ben, direct) = try await pair(harness)
        for index in 1...3 { try await harness.send(ben, "m\(index)", in: direct.id) }

        let read = try await harness.service.markRead(ana.caller, conversationId: direct.id, seq: 2)

        #expect(read.deliveries.first?.event == .receiptUpdated(
            ReceiptUpdate(conversationId: direct.id, userId: ana.id, lastDeliveredSeq: 2, lastReadSeq: 2)))
        #expect(try await harness.service.markRead(ana.caller, conversationId: direct.id, seq: 1).deliveries.isEmpty)
    }
}
