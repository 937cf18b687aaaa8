@testable import ChatterBotsCLI
import ChatterBots
import Foundation
import Testing

/// A chat left open for days: the screen remembers each conversation's messages only as far back as one can arrive
/// again, and still shows every message once.
@Suite("ChatScreen: a long session")
struct ChatScreenLongSessionTests {
    typealias F = ChatFixtures

    static func bob(_ seq: Int, _ text: String? = nil) -> Message {
        F.message("M-BOB-\(seq)", in: F.withBob, seq: seq, from: F.bob, text ?? "msg \(seq)", at: F.time(15, seq % 60))
    }

    /// bob's conversation open (seq 5), then `count` more of bob's messages live, from seq 6.
    static func afterALongChat(_ count: Int = 2000) -> ChatScreen {
        var screen = F.screenWithBobOpen()
        for seq in 6..<(6 + count) { _ = screen.handle(.server(.messageNew(bob(seq)))) }
        return screen
    }

    @Test func aLongChatRemembersNoMoreThanAHistoryPageOfMessages() {
        let screen = Self.afterALongChat()
        #expect(screen.seenMessages.count(in: F.withBob) <= ChatScreen.largestHistoryPage)
        #expect(screen.reactionsShown.count <= ChatScreen.largestHistoryPage)
    }

    @Test func aRepeatOfAMessageOlderThanAnythingThatCanArriveAgainShowsNothing() {
        var screen = Self.afterALongChat()
        let again = screen.handle(.server(.messageNew(Self.bob(6))))
        #expect(again.lines.isEmpty && again.actions.isEmpty)
    }

    @Test func aRepeatOfARecentMessageShowsNothing() {
        var screen = Self.afterALongChat()
        let again = screen.handle(.server(.messageNew(Self.bob(1990))))
        #expect(again.lines.isEmpty && again.actions.isEmpty)
    }

    @Test func aCatchUpAfterALongChatShowsOnlyWhatWasMissed() {
        var screen = Self.afterALongChat()
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        let back = screen.handle(.connected)
        #expect(back.actions.first == .catchUp(SyncRequest(conversations: [F.withBob: 2005, F.team: 2]), refreshDirectory: true))
        let caughtUp = screen.handle(.caughtUp(F.withBob, messages: (1990...2008).map { Self.bob($0) }, members: []))
        #expect(caughtUp.text == ["[15:26] bob: msg 2006", "[15:27] bob: msg 2007", "[15:28] bob: msg 2008"])
    }

    @Test func anEditOfARecentMessageIsShownAndOneOfAForgottenMessageIsNot() {
        var screen = Self.afterALongChat()
        var recent = Self.bob(2000)
        recent.body = "msg 2000, fixed"
        recent.editedAt = F.time(16, 0)
        #expect(screen.handle(.server(.messageUpdated(recent))).text == ["bob edited a message: msg 2000, fixed (edited)"])
        var forgotten = Self.bob(6)
        forgotten.body = "msg 6, fixed"
        forgotten.editedAt = F.time(16, 0)
        #expect(screen.handle(.server(.messageUpdated(forgotten))).lines.isEmpty)
    }

    @Test func ownMessagesEveryoneReadAreForgottenAndNewerOnesStillGetTheirReceipt() {
        var screen = F.screenWithBobOpen()
        for (index, text) in ["one", "two", "three"].enumerated() {
            _ = screen.handle(.line(text))
            _ = screen.handle(.acknowledged(ChatScreenMessagingTests.ack("cm-\(index + 1)", seq: 6 + index)))
        }
        let read = screen.handle(.server(.receiptUpdated(ReceiptUpdate(
            conversationId: F.withBob, userId: F.bob.id, lastDeliveredSeq: 8, lastReadSeq: 8))))
        #expect(read.text == [#"✓✓ read by bob: "three""#])
        #expect(screen.conversations[F.withBob]?.ownMessages.isEmpty == true)
        _ = screen.handle(.line("four"))
        _ = screen.handle(.acknowledged(ChatScreenMessagingTests.ack("cm-4", seq: 9)))
        let delivered = screen.handle(.server(.receiptUpdated(ReceiptUpdate(
            conversationId: F.withBob, userId: F.bob.id, lastDeliveredSeq: 9, lastReadSeq: 8))))
        #expect(delivered.text == [#"✓ delivered to bob: "four""#])
    }

    @Test func whatTheHistoryWasCheckedAgainstIsEmptiedOnceItIsShown() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        _ = screen.handle(.server(.messageNew(Self.bob(6, "six"))))
        let history = screen.handle(.historyLoaded(F.withBob, [Self.bob(5, "five"), Self.bob(6, "six")]))
        #expect(history.text == ["[15:05] bob: five", "[15:06] bob: six"])
        #expect(screen.printedSinceOpen.isEmpty)
    }
}
