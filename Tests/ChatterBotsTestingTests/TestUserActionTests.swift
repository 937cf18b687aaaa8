import ChatterBots
import ChatterBotsTesting
import Foundation
import Synchronization
import Testing

/// A bot that says what it received: media by kind, id and caption; every update of a message by what it is
/// now; and, for "type", shows "typing…" before answering.
struct DescribingBot: Bot {
    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        if let mediaId = message.mediaId {
            try await context.reply(to: message, "\(message.kind.rawValue) \(mediaId.rawValue) \(message.body ?? "-")")
            return
        }
        if message.text == "type" {
            try await context.messaging.setTyping(true, in: message.conversationId)
        }
        try await context.reply(to: message, "echo: \(message.text)")
    }

    func onMessageUpdated(_ message: Message, context: any BotContext) async throws {
        let state = message.isDeleted ? "deleted" : (message.editedAt == nil ? "" : "edited ") + (message.body ?? "")
        let reactions = message.reactions.map { "\($0.emoji)\($0.userIds.count)" }.joined(separator: " ")
        try await context.send("seq \(message.seq) \(state) [\(reactions)]", to: message.conversationId)
    }
}

/// A bot that says each change of reactions it handles: "added 👍", "removed 👍".
struct ReactionReportingBot: Bot {
    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        try await context.reply(to: message, "echo: \(message.text)")
    }

    func onReactionsChanged(
        _ message: Message, added: [Message.Reaction], removed: [Message.Reaction], context: any BotContext
    ) async throws {
        let changes = added.map { "added \($0.emoji)" } + removed.map { "removed \($0.emoji)" }
        try await context.send(changes.joined(separator: ", "), to: message.conversationId)
    }
}

/// A bot that writes down the friend events it handles.
struct FriendEventsBot: Bot {
    let handled: FriendEventLog

    func onFriendRemoved(_ userId: User.ID, context: any BotContext) async throws {
        handled.append("removed \(userId.rawValue)")
    }

    func onFriendRequestCancelled(_ requestId: FriendRequest.ID, context: any BotContext) async throws {
        handled.append("cancelled \(requestId.rawValue)")
    }
}

/// What `FriendEventsBot` handled, in order.
final class FriendEventLog: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }

    var all: [String] { entries.withLock { $0 } }
}

extension BotTestHarness {
    /// A REST client signed in as the bot's account (on the device the sandbox created with it), to act as the
    /// bot where its context cannot yet.
    var botREST: ChatterRESTClient {
        ChatterRESTClient(
            configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: botAccount.session.tokens),
            requestTimeouts: configuration.restRequestTimeouts)
    }
}

/// Every action of a `TestUser` beyond sending text, carried out against the sandbox and seen by a running bot.
@Suite("TestUser actions")
struct TestUserActionTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])

    @Test func anEditOfTheUsersMessageReachesTheBotAsAnUpdate() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("helo")
            #expect(try await alice.nextText() == "echo: helo")
            let edited = try await alice.edit(sent, to: "hello")
            #expect(edited.body == "hello")
            #expect(edited.editedAt != nil)
            #expect(try await alice.nextText() == "seq \(sent.seq) edited hello []")
        }
    }

    @Test func settleReturnsOnceTheBotHasHandledAnEdit() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("helo")
            _ = try await alice.nextMessage()
            try await alice.edit(sent, to: "hello")
            try await harness.settle()
            #expect(try await alice.remainingMessages().map(\.body) == ["seq \(sent.seq) edited hello []"])
        }
    }

    @Test func aDeletionOfTheUsersMessageReachesTheBotAsAnUpdate() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let sent = try await alice.send("oops")
            _ = try await alice.nextMessage()
            let deleted = try await alice.delete(sent)
            #expect(deleted.isDeleted)
            #expect(deleted.body == nil)
            #expect(try await alice.nextText() == "seq \(sent.seq) deleted []")
        }
    }

    @Test func aReactionToTheBotsMessageReachesTheBotAndCanBeTakenBack() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("hi")
            let reply = try await alice.nextMessage()
            let reacted = try await alice.react("👍", to: reply)
            #expect(reacted.reactions == [Message.Reaction(emoji: "👍", userIds: [alice.id])])
            #expect(try await alice.nextText() == "seq \(reply.seq) echo: hi [👍1]")
            let unreacted = try await alice.removeReaction("👍", from: reply)
            #expect(unreacted.reactions.isEmpty)
            #expect(try await alice.nextText() == "seq \(reply.seq) echo: hi []")
        }
    }

    @Test func aReactionTakenOffAndPutBackReachesTheBotAsThreeChanges() async throws {
        try await BotTestHarness.start(bot: ReactionReportingBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("hi")
            let reply = try await alice.nextMessage()
            try await alice.react("👍", to: reply)
            #expect(try await alice.nextText() == "added 👍")
            try await alice.removeReaction("👍", from: reply)
            #expect(try await alice.nextText() == "removed 👍")
            try await alice.react("👍", to: reply)
            #expect(try await alice.nextText() == "added 👍")
        }
    }

    @Test func aReactionPutBackIsHandledOnceWhenEveryFrameComesTwice() async throws {
        try await BotTestHarness.start(bot: ReactionReportingBot()).run { harness in
            let alice = try await harness.user("alice")
            try await harness.inject(.duplicateEvents(types: ["message.updated"], copies: 1))
            try await alice.send("hi")
            let reply = try await alice.nextMessage()
            try await alice.react("👍", to: reply)
            #expect(try await alice.nextText() == "added 👍")
            try await alice.removeReaction("👍", from: reply)
            #expect(try await alice.nextText() == "removed 👍")
            try await alice.react("👍", to: reply)
            #expect(try await alice.nextText() == "added 👍")
            // The bot's text reply comes after every copy it read before: a copy handled would have said more.
            try await alice.send("done")
            #expect(try await alice.nextText() == "echo: done")
            #expect(try await alice.remainingMessages().isEmpty)
        }
    }

    @Test func aPhotoReachesTheBotWithItsKindMediaAndCaptionAndCanBeDownloaded() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let photo = try await alice.sendMedia(Self.png, contentType: "image/png", caption: "my cat")
            let mediaId = try #require(photo.mediaId)
            #expect(photo.kind == .photo)
            #expect(photo.body == "my cat")
            #expect(try await alice.nextText() == "photo \(mediaId.rawValue) my cat")
            let file = try await alice.rest.downloadMedia(mediaId)
            #expect(file.data == Self.png)
            #expect(file.contentType == "image/png")
        }
    }

    @Test func eachMediaTypeIsSentAsTheKindTheContractNames() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            for (contentType, kind) in [("audio/ogg", "voice"), ("video/mp4", "video"), ("application/pdf", "document")] {
                let sent = try await alice.sendMedia(Data("file".utf8), contentType: contentType)
                #expect(sent.kind.rawValue == kind)
                #expect(try await alice.nextText() == "\(kind) \(try #require(sent.mediaId).rawValue) -")
            }
        }
    }

    @Test func mediaOfATypeNoMessageCarriesIsRefusedByTheService() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let error = await #expect(throws: ChatterAPIError.self) {
                try await alice.sendMedia(Data("plain".utf8), contentType: "text/plain")
            }
            #expect(error?.code == .validationFailed)
        }
    }

    @Test func typingStartsAndStopsAtTheService() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let direct = try await alice.directConversation()
            try await alice.startTyping()
            #expect(await harness.sandbox.hub.typingExpiry(of: alice.id, in: direct.id) == harness.now.addingTimeInterval(5))
            try await alice.stopTyping()
            #expect(await harness.sandbox.hub.typingExpiry(of: alice.id, in: direct.id) == nil)
        }
    }

    @Test func typingWhereTheUserIsNoMemberIsRefusedSayingWhy() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            let bob = try await harness.user("bob")
            let group = try await harness.group("bob and the bot", members: [bob])
            let error = await #expect(throws: BotTestError.self) { try await alice.startTyping(in: group) }
            guard case .sandboxRefused(let step, let body) = error else {
                Issue.record("not a refusal: \(String(describing: error))")
                return
            }
            #expect(step == "start typing in \(group.id)")
            #expect(body.code == .notFound)
        }
    }

    @Test func readAndDeliveredReceiptsMoveTheUsersWatermarksAsTheBotSeesThem() async throws {
        try await BotTestHarness.start(bot: DescribingBot()).run { harness in
            let alice = try await harness.user("alice")
            try await alice.send("one")
            let first = try await alice.nextMessage()
            try await alice.send("two")
            let second = try await alice.nextMessage()
            try await alice.markRead(upTo: first)
            try await alice.markDelivered(upTo: second)
            let seen = try await harness.botREST.conversation(first.conversationId).members.first { $0.userId == alice.id }
            #expect(seen?.lastReadSeq == first.seq)
            #expect(seen?.lastDeliveredSeq == second.seq)
        }
    }

    @Test func unfriendingTheBotEndsTheFriendshipAndTheBotHandlesIt() async throws {
        let handled = FriendEventLog()
        let configuration = BotTestConfiguration(friendRequests: .allowlist(["alice"]))
        try await BotTestHarness.start(bot: FriendEventsBot(handled: handled), configuration: configuration).run { harness in
            // Befriended through a request, so that the bot knows the friendship it loses.
            let alice = try await harness.user("alice", befriended: false)
            try await alice.sendFriendRequest()
            try await harness.settle()
            #expect(try await alice.isFriendOfBot())
            try await alice.unfriendBot()
            #expect(try await alice.isFriendOfBot() == false)
            try await harness.settle()
            #expect(handled.all == ["removed \(alice.id.rawValue)"])
        }
    }

    @Test func cancellingAPendingFriendRequestWithdrawsItAndTheBotHandlesIt() async throws {
        let handled = FriendEventLog()
        try await BotTestHarness.start(bot: FriendEventsBot(handled: handled)).run { harness in
            let alice = try await harness.user("alice", befriended: false)
            let request = try await alice.sendFriendRequest()
            let cancelled = try await alice.cancelFriendRequest()
            #expect(cancelled?.id == request.id)
            #expect(try await alice.rest.friendRequests().outgoing.isEmpty)
            try await harness.settle()
            #expect(handled.all == ["cancelled \(request.id.rawValue)"])
            #expect(try await alice.cancelFriendRequest() == nil, "nothing is pending any more")
        }
    }
}
