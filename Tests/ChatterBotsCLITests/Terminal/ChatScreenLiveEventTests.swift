@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Typing, receipts on the person's own messages, and friends' presence.
@Suite("ChatScreen: typing, receipts, presence")
struct ChatScreenLiveEventTests {
    typealias F = ChatFixtures

    static func typing(_ user: User, _ isTyping: Bool, in conversation: Conversation.ID = F.withBob) -> ChatInput {
        .server(.typing(TypingIndicator(conversationId: conversation, userId: user.id, isTyping: isTyping)))
    }

    static func receipt(_ user: User, delivered: Int, read: Int, in conversation: Conversation.ID = F.withBob) -> ChatInput {
        .server(.receiptUpdated(ReceiptUpdate(conversationId: conversation, userId: user.id, lastDeliveredSeq: delivered, lastReadSeq: read)))
    }

    /// bob's conversation open, alice's "hello" acknowledged as seq 6.
    static func screenAfterSendingHello() -> ChatScreen {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.acknowledged(MessageAck(
            clientMessageId: "cm-1", messageId: "M-OWN-6", conversationId: F.withBob, seq: 6, createdAt: F.time(14, 5))))
        return screen
    }

    // MARK: Typing

    @Test func typingInTheOpenConversationIsShown() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(Self.typing(F.bob, true))
        #expect(update.text == ["bob is typing…"])
        #expect(update.lines.first?.tone == .status)
        #expect(screen.typingUsernames == ["bob"])
    }

    @Test func aRepeatedTypingStartIsShownOnce() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(Self.typing(F.bob, true))
        #expect(screen.handle(Self.typing(F.bob, true)).lines.isEmpty)
    }

    @Test func typingThatStopsWithoutAMessageIsCleared() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(Self.typing(F.bob, true))
        #expect(screen.handle(Self.typing(F.bob, false)).text == ["bob stopped typing."])
        #expect(screen.typingUsernames.isEmpty)
    }

    @Test func theTypistsMessageClearsTypingSilently() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(Self.typing(F.bob, true))
        let update = screen.handle(.server(.messageNew(F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "ok", at: F.time(14, 10)))))
        #expect(update.text == ["[14:10] bob: ok"])
        #expect(screen.typingUsernames.isEmpty)
        #expect(screen.handle(Self.typing(F.bob, false)).lines.isEmpty)
    }

    @Test func severalTypistsAreNamedTogether() {
        var screen = F.screen()
        _ = screen.handle(.line("/open team"))
        _ = screen.handle(Self.typing(F.carol, true, in: F.team))
        #expect(screen.handle(Self.typing(F.bob, true, in: F.team)).text == ["bob and carol are typing…"])
        #expect(screen.handle(Self.typing(F.carol, false, in: F.team)).text == ["bob is typing…"])
    }

    @Test func typingElsewhereOrByThePersonIsNotShown() {
        var screen = F.screenWithBobOpen()
        #expect(screen.handle(Self.typing(F.carol, true, in: F.team)).lines.isEmpty)
        #expect(screen.handle(Self.typing(F.alice, true)).lines.isEmpty)
    }

    @Test func losingTheConnectionForgetsWhoWasTyping() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(Self.typing(F.bob, true))
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(screen.typingUsernames.isEmpty)
    }

    // MARK: Receipts

    @Test func deliveryOfAnOwnMessageShowsOneTick() {
        var screen = Self.screenAfterSendingHello()
        let update = screen.handle(Self.receipt(F.bob, delivered: 6, read: 5))
        #expect(update.text == ["✓ delivered to bob: \"hello\""])
        #expect(update.lines.first?.tone == .status)
    }

    @Test func readingAnOwnMessageShowsTwoTicks() {
        var screen = Self.screenAfterSendingHello()
        _ = screen.handle(Self.receipt(F.bob, delivered: 6, read: 5))
        #expect(screen.handle(Self.receipt(F.bob, delivered: 6, read: 6)).text == ["✓✓ read by bob: \"hello\""])
    }

    @Test func readImpliesDeliveredAndShowsOnlyTheRead() {
        var screen = Self.screenAfterSendingHello()
        #expect(screen.handle(Self.receipt(F.bob, delivered: 0, read: 6)).text == ["✓✓ read by bob: \"hello\""])
    }

    @Test func watermarksThatCoverNoNewOwnMessageShowNothing() {
        var screen = Self.screenAfterSendingHello()
        _ = screen.handle(Self.receipt(F.bob, delivered: 6, read: 6))
        #expect(screen.handle(Self.receipt(F.bob, delivered: 6, read: 6)).lines.isEmpty)
        #expect(screen.handle(Self.receipt(F.bob, delivered: 3, read: 2)).lines.isEmpty)  // never backwards
    }

    @Test func aReceiptThatOvertakesTheAckIsShownWithTheMessage() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        #expect(screen.handle(Self.receipt(F.bob, delivered: 6, read: 5)).lines.isEmpty)
        let update = screen.handle(.acknowledged(MessageAck(
            clientMessageId: "cm-1", messageId: "M-OWN-6", conversationId: F.withBob, seq: 6, createdAt: F.time(14, 5))))
        #expect(update.text == ["[14:05] alice: hello", "✓ delivered to bob: \"hello\""])
    }

    @Test func receiptsInAGroupNameEachReader() {
        var screen = F.screen()
        _ = screen.handle(.line("/open team"))
        _ = screen.handle(.historyLoaded(F.team, []))
        _ = screen.handle(.line("pizza?"))
        _ = screen.handle(.acknowledged(MessageAck(
            clientMessageId: "cm-1", messageId: "M-OWN-3", conversationId: F.team, seq: 3, createdAt: F.time(14, 5))))
        #expect(screen.handle(Self.receipt(F.bob, delivered: 3, read: 3, in: F.team)).text == ["✓✓ read by bob: \"pizza?\""])
        #expect(screen.handle(Self.receipt(F.carol, delivered: 3, read: 2, in: F.team)).text == ["✓ delivered to carol: \"pizza?\""])
    }

    @Test func receiptsElsewhereNameTheConversation() {
        var screen = Self.screenAfterSendingHello()
        _ = screen.handle(.line("/open team"))
        #expect(screen.handle(Self.receipt(F.bob, delivered: 6, read: 6)).text == ["[1 bob] ✓✓ read by bob: \"hello\""])
    }

    @Test func longMessagesAreCutInReceiptLines() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line(String(repeating: "x", count: 60)))
        _ = screen.handle(.acknowledged(MessageAck(
            clientMessageId: "cm-1", messageId: "M-OWN-6", conversationId: F.withBob, seq: 6, createdAt: F.time(14, 5))))
        #expect(screen.handle(Self.receipt(F.bob, delivered: 6, read: 0)).text == ["✓ delivered to bob: \"\(String(repeating: "x", count: 39))…\""])
    }

    @Test func readingOnAnotherDeviceLowersTheUnreadCount() {
        var screen = F.screen()
        #expect(screen.unreadCount(in: F.withBob) == 2)
        let update = screen.handle(Self.receipt(F.alice, delivered: 5, read: 4))
        #expect(update.lines.isEmpty)
        #expect(screen.unreadCount(in: F.withBob) == 1)
    }

    // MARK: Presence

    @Test func theFirstSnapshotSaysWhoIsOnline() {
        var screen = F.screen()
        let update = screen.handle(.server(.presenceSnapshot([
            Presence(userId: F.bob.id, isOnline: true), Presence(userId: F.carol.id, isOnline: false),
        ])))
        #expect(update.text == ["Online now: bob."])
    }

    @Test func aSnapshotWithNobodyOnlineSaysSo() {
        var screen = F.screen()
        #expect(screen.handle(.server(.presenceSnapshot([Presence(userId: F.bob.id, isOnline: false)]))).text == [
            "None of your friends is online."
        ])
    }

    @Test func friendsComingOnlineAndGoingOfflineAreShown() {
        var screen = F.screen()
        _ = screen.handle(.server(.presenceSnapshot([])))
        #expect(screen.handle(.server(.presence(Presence(userId: F.carol.id, isOnline: true)))).text == ["● carol is online."])
        #expect(screen.handle(.server(.presence(Presence(userId: F.carol.id, isOnline: true)))).lines.isEmpty)
        let offline = Presence(userId: F.carol.id, isOnline: false, lastSeenAt: F.time(16, 45))
        #expect(screen.handle(.server(.presence(offline))).text == ["○ carol went offline (last seen 16:45)."])
    }

    @Test func aSnapshotAfterAReconnectReportsOnlyWhatChanged() {
        var screen = F.screen()
        _ = screen.handle(.server(.presenceSnapshot([
            Presence(userId: F.bob.id, isOnline: true), Presence(userId: F.carol.id, isOnline: true),
        ])))
        let update = screen.handle(.server(.presenceSnapshot([
            Presence(userId: F.bob.id, isOnline: true), Presence(userId: F.carol.id, isOnline: false),
        ])))
        #expect(update.text == ["○ carol went offline."])
    }
}
