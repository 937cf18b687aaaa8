@testable import ChatterBotsCLI
import ChatterBots
import Foundation
import Testing

/// Lines show in seq order: a message that comes after a missing one waits while the missing one is on its way
/// (a catch-up, the ack of the person's own message), and shows at once when nothing is.
@Suite("ChatScreen: the order of lines")
struct ChatScreenOrderTests {
    typealias F = ChatFixtures

    /// A screen with bob's conversation open (seq 5) that lost its connection and is connected again, its
    /// catch-up not back yet.
    static func reconnecting() -> ChatScreen {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        _ = screen.handle(.connected)
        return screen
    }

    static func bob(_ seq: Int, _ text: String) -> Message {
        F.message("M-BOB-\(seq)", in: F.withBob, seq: seq, from: F.bob, text, at: F.time(15, seq))
    }

    @Test func aLiveMessageDuringTheCatchUpShowsBelowTheMessagesItBringsBack() {
        var screen = Self.reconnecting()
        let live = screen.handle(.server(.messageNew(Self.bob(8, "eight"))))
        #expect(live.lines.isEmpty)
        let caughtUp = screen.handle(.caughtUp(F.withBob, messages: [Self.bob(6, "six"), Self.bob(7, "seven")], members: []))
        #expect(caughtUp.text == ["[15:06] bob: six", "[15:07] bob: seven", "[15:08] bob: eight"])
        #expect(caughtUp.actions.contains(.markRead(ReceiptPosition(conversationId: F.withBob, seq: 8))))
    }

    @Test func aMessageAfterAGapWithNothingOnItsWayShowsAtOnce() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.server(.messageNew(Self.bob(7, "seven"))))
        #expect(update.text == ["[15:07] bob: seven"])
    }

    @Test func anAnswerReadBeforeTheAckOfTheMessageItAnswersShowsBelowIt() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("six"))
        #expect(screen.handle(.server(.messageNew(Self.bob(7, "seven")))).lines.isEmpty)
        let acked = screen.handle(.server(.messageAck(MessageAck(
            clientMessageId: "cm-1", messageId: "M-ME-6", conversationId: F.withBob, seq: 6, createdAt: F.time(15, 6)))))
        #expect(acked.text == ["[15:06] alice: six", "[15:07] bob: seven"])
    }

    @Test func aMessageHeldForARefusedOwnMessageShowsWhenItIsRefused() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("six"))
        _ = screen.handle(.server(.messageNew(Self.bob(7, "seven"))))
        let refused = screen.handle(.sendFailed("cm-1", reason: "NOT_FRIENDS"))
        #expect(refused.text == ["✗ Not sent: \"six\": NOT_FRIENDS", "[15:07] bob: seven"])
    }

    @Test func theAckOfAMessageSentWhileTheHistoryLoadsShowsBelowTheHistory() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        _ = screen.handle(.line("hi"))
        let acked = screen.handle(.server(.messageAck(MessageAck(
            clientMessageId: "cm-1", messageId: "M-ME-6", conversationId: F.withBob, seq: 6, createdAt: F.time(15, 6)))))
        #expect(acked.lines.isEmpty)
        let history = screen.handle(.historyLoaded(F.withBob, [Self.bob(5, "five")]))
        #expect(history.text == ["[15:05] bob: five", "[15:06] alice: hi"])
    }

    @Test func aMessageRefusedForNowLetsTheMessagesHeldBehindItShow() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("six"))
        _ = screen.handle(.server(.messageNew(Self.bob(7, "seven"))))
        let retrying = screen.handle(.sendRetrying("cm-1", reason: "RATE_LIMITED", after: .seconds(30)))
        #expect(retrying.text.first == "[15:07] bob: seven")
    }

    @Test func aCatchUpThatLeavesTheGapShowsWhatWasHeld() {
        var screen = Self.reconnecting()
        _ = screen.handle(.server(.messageNew(Self.bob(8, "eight"))))
        let caughtUp = screen.handle(.caughtUp(F.withBob, messages: [Self.bob(6, "six")], members: []))
        #expect(caughtUp.text == ["[15:06] bob: six", "[15:08] bob: eight"])
    }

    @Test func theEndOfACatchUpShowsWhatWasHeldInConversationsItDidNotReport() {
        var screen = Self.reconnecting()
        _ = screen.handle(.server(.messageNew(Self.bob(8, "eight"))))
        let ended = screen.handle(.catchUpEnded(failure: nil))
        #expect(ended.text == ["[15:08] bob: eight"])
        #expect(ended.actions.isEmpty)
    }

    @Test func aFailedCatchUpShowsWhatWasHeldAndSaysItTriesAgain() {
        var screen = Self.reconnecting()
        _ = screen.handle(.server(.messageNew(Self.bob(8, "eight"))))
        let failed = screen.handle(.catchUpEnded(failure: "the reply to sync.request did not come within 10 s"))
        #expect(failed.text == [
            "[15:08] bob: eight",
            "Could not fetch what was missed while offline (the reply to sync.request did not come within 10 s); reconnecting to try again.",
        ])
    }

    @Test func aCatchUpOfAConversationGoneFromTheScreenShowsNothing() {
        var screen = Self.reconnecting()
        let update = screen.handle(.caughtUp("01CONVGONE", messages: [
            F.message("M-G-1", in: "01CONVGONE", seq: 1, from: F.bob, "hello"),
        ], members: []))
        #expect(update.lines.isEmpty && update.actions.isEmpty)
    }

    @Test func losingTheConnectionShowsWhatWasHeld() {
        var screen = Self.reconnecting()
        _ = screen.handle(.server(.messageNew(Self.bob(8, "eight"))))
        let lost = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(lost.text.first == "[15:08] bob: eight")
    }

    @Test func theListPreviewsTheNewestMessageWhateverOrderTheyCameIn() {
        var screen = Self.reconnecting()
        _ = screen.handle(.server(.messageNew(Self.bob(8, "eight"))))
        _ = screen.handle(.caughtUp(F.withBob, messages: [Self.bob(6, "six"), Self.bob(7, "seven")], members: []))
        #expect(screen.conversations[F.withBob]?.preview?.hasSuffix("eight") == true)
    }

    @Test func anOwnMessageFromAnotherDeviceThatFillsAGapSendsTheReceipts() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.server(.messageNew(Self.bob(7, "seven"))))
        let filled = screen.handle(.server(.messageNew(
            F.message("M-ME-6", in: F.withBob, seq: 6, from: F.alice, "from my phone", at: F.time(15, 6)))))
        #expect(filled.actions.contains(.markRead(ReceiptPosition(conversationId: F.withBob, seq: 7))))
    }

    @Test func aConversationOpenedWhileTheDirectoryReloadsIsNotTakenAwayByTheOlderListing() {
        var screen = Self.reconnecting()  // its catch-up reloads the directory
        _ = screen.handle(.conversationOpened(F.conversation(F.withCarol, members: [F.alice, F.carol])))
        let reloaded = screen.handle(.directoryLoaded(F.directory()))
        #expect(!reloaded.text.contains { $0.contains("is gone") })
        #expect(screen.openConversationId == F.withCarol)
    }

    @Test func messagesInAnUnknownConversationAskForOneDirectoryReloadAtATime() {
        var screen = F.screen()
        let first = screen.handle(.server(.messageNew(F.message("M-X-1", in: "01CONVUNKNOWN", seq: 1, from: F.bob, "psst"))))
        #expect(first.actions == [.refreshDirectory])
        let second = screen.handle(.server(.messageNew(F.message("M-X-2", in: "01CONVUNKNOWN", seq: 2, from: F.bob, "hey"))))
        #expect(second.actions.isEmpty)
        _ = screen.handle(.directoryRefreshFailed("Could not refresh your conversations: timed out"))
        let third = screen.handle(.server(.messageNew(F.message("M-Y-1", in: "01CONVOTHER", seq: 1, from: F.bob, "again"))))
        #expect(third.actions == [.refreshDirectory])
    }
}
