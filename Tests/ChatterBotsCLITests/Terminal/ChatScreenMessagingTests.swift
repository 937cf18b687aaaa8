@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Sending (acks, failures, queueing while offline, resending after a reconnect) and receiving messages.
@Suite("ChatScreen: messaging")
struct ChatScreenMessagingTests {
    typealias F = ChatFixtures

    static func ack(_ id: String, seq: Int, at time: Timestamp = F.time(14, 5), in conversation: Conversation.ID = F.withBob) -> MessageAck {
        MessageAck(clientMessageId: ClientMessageID(id), messageId: Message.ID("M-OWN-\(seq)"), conversationId: conversation, seq: seq, createdAt: time)
    }

    @Test func textWithNothingOpenIsNotSentAndSaysHowToOpenOne() {
        var screen = F.screen()
        let update = screen.handle(.line("hello"))
        #expect(update.text == ["No conversation is open: /list, then /open <n> (or /dm <username>). Nothing was sent."])
        #expect(update.actions.isEmpty)
        #expect(screen.pendingMessages.isEmpty)
    }

    @Test func textGoesToTheOpenConversationWithAFreshClientMessageId() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.line("hello"))
        let expected = MessageSend(conversationId: F.withBob, clientMessageId: "cm-1", content: .text("hello"))
        #expect(update.actions == [.send(expected)])
        #expect(update.lines.isEmpty)
        #expect(screen.pendingMessages == [expected])
        #expect(screen.handle(.line("again")).actions == [
            .send(MessageSend(conversationId: F.withBob, clientMessageId: "cm-2", content: .text("again")))
        ])
    }

    @Test func theAckShowsTheMessageWithItsServerTimeAndMarksItRead() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        let update = screen.handle(.acknowledged(Self.ack("cm-1", seq: 6)))
        #expect(update.text == ["[14:05] alice: hello"])
        #expect(update.lines.first?.tone == .ownMessage)
        #expect(update.actions == [.markRead(ReceiptPosition(conversationId: F.withBob, seq: 6))], "so that nothing before it counts as unread")
        #expect(screen.pendingMessages.isEmpty)
    }

    @Test func aSecondAckForTheSameMessageShowsNothing() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.acknowledged(Self.ack("cm-1", seq: 6)))
        let again = screen.handle(.server(.messageAck(Self.ack("cm-1", seq: 6))))
        #expect(again.lines.isEmpty && again.actions.isEmpty)
    }

    @Test func aRefusedMessageIsReportedAndNotResent() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        let update = screen.handle(.sendFailed("cm-1", reason: "NOT_FRIENDS: You can only message friends."))
        #expect(update.text == ["✗ Not sent: \"hello\": NOT_FRIENDS: You can only message friends."])
        #expect(update.lines.first?.tone == .error)
        #expect(screen.pendingMessages.isEmpty)
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(!screen.handle(.connected).actions.contains { if case .send = $0 { true } else { false } })
    }

    @Test func aMessageRefusedForNowSaysHowToCancelIt() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        let retrying = screen.handle(.sendRetrying("cm-1", reason: "RATE_LIMITED: Slow down.", after: .seconds(30)))
        #expect(retrying.text == ["… Not sent yet: \"hello\": RATE_LIMITED: Slow down.; trying again in 30 s (/cancel takes it back)."])
    }

    @Test func cancelTakesBackAMessageRefusedForNowAndItIsNeverSent() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.sendRetrying("cm-1", reason: "RATE_LIMITED", after: .seconds(30)))
        let cancelled = screen.handle(.line("/cancel"))
        #expect(cancelled.text == ["✗ Cancelled: \"hello\" will not be sent."])
        #expect(cancelled.actions == [.cancelSend("cm-1")])
        #expect(screen.pendingMessages.isEmpty)
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(!screen.handle(.connected).actions.contains { if case .send = $0 { true } else { false } })
    }

    @Test func cancelLeavesMessagesNotRefusedPending() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("refused"))
        _ = screen.handle(.sendRetrying("cm-1", reason: "RATE_LIMITED", after: .seconds(30)))
        _ = screen.handle(.line("waiting"))
        #expect(screen.handle(.line("/cancel")).actions == [.cancelSend("cm-1")])
        #expect(screen.pendingMessages.map(\.clientMessageId) == ["cm-2"])
    }

    @Test func cancelWithNothingRefusedSaysWhatItTakesBack() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        let update = screen.handle(.line("/cancel"))
        #expect(update.text == ["Nothing to cancel: /cancel takes back a message the service refused for now (\"… Not sent yet\")."])
        #expect(update.lines.first?.tone == .error)
        #expect(update.actions.isEmpty)
        #expect(screen.pendingMessages.count == 1)
    }

    @Test func aCancelledMessageStoredByAResendAlreadyOnItsWayIsShownAsSent() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.sendRetrying("cm-1", reason: "RATE_LIMITED", after: .seconds(30)))
        _ = screen.handle(.line("/cancel"))
        let acked = screen.handle(.acknowledged(Self.ack("cm-1", seq: 6)))
        #expect(acked.text == ["\"hello\" was sent before it could be cancelled:", "[14:05] alice: hello"])
    }

    @Test func aTooLongMessageIsRefusedBeforeSending() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.line(String(repeating: "a", count: 4097)))
        #expect(update.text == ["Not sent: 4097 characters, the limit is 4096."])
        #expect(update.actions.isEmpty)
    }

    @Test func textTypedOfflineWaitsAndGoesOutOnceConnected() {
        var screen = F.screenWithBobOpen(connected: false)
        let typed = screen.handle(.line("hello"))
        #expect(typed.text == ["Offline: the message goes out when the connection is back."])
        #expect(typed.actions.isEmpty)
        let connected = screen.handle(.connected)
        #expect(connected.actions.contains(.send(MessageSend(conversationId: F.withBob, clientMessageId: "cm-1", content: .text("hello")))))
    }

    @Test func aMessageInFlightWhenTheSocketDropsIsResentWithTheSameIdInOrder() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("first"))
        _ = screen.handle(.line("second"))
        let lost = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .milliseconds(1200)))
        #expect(lost.text == ["Connection lost (network lost (1006)); reconnecting in 1.2 s. Messages you type are kept until it is back."])
        let back = screen.handle(.connected)
        #expect(back.text == ["Reconnected."])
        #expect(back.actions == [
            .catchUp(SyncRequest(conversations: [F.withBob: 5, F.team: 2]), refreshDirectory: true),
            .send(MessageSend(conversationId: F.withBob, clientMessageId: "cm-1", content: .text("first"))),
            .send(MessageSend(conversationId: F.withBob, clientMessageId: "cm-2", content: .text("second"))),
        ])
    }

    @Test func aReconnectSyncsFromTheLastSeqWithNothingMissingBeforeIt() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.server(.messageNew(F.message("M-BOB-7", in: F.withBob, seq: 7, from: F.bob, "seven"))))
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(screen.handle(.connected).actions.first == .catchUp(SyncRequest(conversations: [F.withBob: 5, F.team: 2]), refreshDirectory: true))
    }

    @Test func receiptsStopBeforeAMissingMessageAndCatchUpOnceItArrives() {
        var screen = F.screenWithBobOpen()
        let early = screen.handle(.server(.messageNew(F.message("M-BOB-7", in: F.withBob, seq: 7, from: F.bob, "seven"))))
        #expect(!early.actions.contains(.markRead(ReceiptPosition(conversationId: F.withBob, seq: 7))))
        let filled = screen.handle(.server(.messageNew(F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "six"))))
        #expect(filled.actions.contains(.markRead(ReceiptPosition(conversationId: F.withBob, seq: 7))))
        _ = screen.handle(.disconnected(reason: "network lost (1006)", retryIn: .seconds(1)))
        #expect(screen.handle(.connected).actions.first == .catchUp(SyncRequest(conversations: [F.withBob: 7, F.team: 2]), refreshDirectory: true))
    }

    @Test func theAckOfTheMissingOwnMessageLetsTheReceiptsCatchUp() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("six"))
        let early = screen.handle(.server(.messageNew(F.message("M-BOB-7", in: F.withBob, seq: 7, from: F.bob, "seven"))))
        #expect(!early.actions.contains(.markRead(ReceiptPosition(conversationId: F.withBob, seq: 7))))
        let acked = screen.handle(.acknowledged(MessageAck(
            clientMessageId: "cm-1", messageId: "M-ME-6", conversationId: F.withBob, seq: 6, createdAt: F.time(14, 11))))
        #expect(acked.actions.contains(.markRead(ReceiptPosition(conversationId: F.withBob, seq: 7))))
    }

    @Test func givingUpOnTheConnectionSaysSo() {
        var screen = F.screen()
        #expect(screen.handle(.disconnected(reason: "client key invalid (4002)", retryIn: nil)).text == [
            "Connection lost (client key invalid (4002)); not reconnecting. Messages you type are kept until it is back."
        ])
        #expect(!screen.isConnected)
    }

    @Test func aMessageInTheOpenConversationIsShownAndMarkedRead() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.server(.messageNew(F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "on my way", at: F.time(14, 10)))))
        #expect(update.text == ["[14:10] bob: on my way"])
        #expect(update.actions == [.markRead(ReceiptPosition(conversationId: F.withBob, seq: 6))])
        #expect(screen.unreadCount(in: F.withBob) == 0)
    }

    @Test func aMessageElsewhereIsShownWithItsConversationCountedAndMarkedDelivered() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.server(.messageNew(F.message("M-TEAM-3", in: F.team, seq: 3, from: F.carol, "yes!", at: F.time(14, 10)))))
        #expect(update.text == ["[14:10] [2 Team] carol: yes!"])
        #expect(update.actions == [.markDelivered(ReceiptPosition(conversationId: F.team, seq: 3))])
        #expect(screen.unreadCount(in: F.team) == 1)
    }

    @Test func aDuplicateMessageIsShownOnce() {
        var screen = F.screenWithBobOpen()
        let message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "on my way")
        _ = screen.handle(.server(.messageNew(message)))
        let again = screen.handle(.server(.messageNew(message)))
        #expect(again.lines.isEmpty && again.actions.isEmpty)
    }

    /// What the terminal prints of another person's message, their name and the conversation's title carries no
    /// bidirectional control: none can reorder the line to make it read as someone else's.
    @Test func bidirectionalControlsInOthersTextAreNotPrinted() {
        let bidi = "\u{200E}\u{200F}\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}\u{061C}"
        var screen = F.screen()
        let mallory = User(id: "01USERBOB", username: "bob\u{202E}", displayName: "Bob")
        _ = screen.handle(.userLoaded(mallory))
        _ = screen.handle(.server(.conversationUpdated(F.conversation(
            F.team, kind: .group, title: "Team\u{200F}", members: [F.alice, F.bob, F.carol], lastSeq: 2))))
        let update = screen.handle(.server(.messageNew(
            F.message("M-TEAM-3", in: F.team, seq: 3, from: F.bob, "ok\(bidi)done", at: F.time(14, 10)))))
        let printed = update.lines.map(TerminalStyle.plain.render)
        #expect(printed == ["[14:10] [2 Team?] bob?: ok????????????done"])
        #expect(!printed.joined().unicodeScalars.contains { bidi.unicodeScalars.contains($0) })
    }

    @Test func ownMessagesFromAnotherDeviceAreShownButNotUnread() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.server(.messageNew(F.message("M-TEAM-3", in: F.team, seq: 3, from: F.alice, "from my phone", at: F.time(14, 10)))))
        #expect(update.text == ["[14:10] [2 Team] alice: from my phone"])
        #expect(update.lines.first?.tone == .ownMessage)
        #expect(update.actions.isEmpty)
        #expect(screen.unreadCount(in: F.team) == 0)
    }

    @Test func aMessageInAnUnknownConversationAsksForTheDirectory() {
        var screen = F.screen()
        let update = screen.handle(.server(.messageNew(F.message("M-X-1", in: "01CONVUNKNOWN", seq: 1, from: F.bob, "psst", at: F.time(14, 10)))))
        #expect(update.text == ["[14:10] bob wrote in a conversation new to this screen."])
        #expect(update.actions == [.refreshDirectory])
    }

    @Test func catchingUpElsewhereShowsTheLastFewAndCountsAll() {
        var screen = F.screenWithBobOpen()
        let missed = (3...7).map { F.message("M-TEAM-\($0)", in: F.team, seq: $0, from: F.carol, "news \($0)", at: F.time(14, $0)) }
        let update = screen.handle(.caughtUp(F.team, messages: missed, members: []))
        #expect(update.text == [
            "[2 Team] 5 new messages while offline; the last 3:",
            "[14:05] [2 Team] carol: news 5",
            "[14:06] [2 Team] carol: news 6",
            "[14:07] [2 Team] carol: news 7",
        ])
        #expect(update.actions == [.markDelivered(ReceiptPosition(conversationId: F.team, seq: 7))])
        #expect(screen.unreadCount(in: F.team) == 5)
    }

    @Test func catchingUpTheOpenConversationShowsEverythingAndMarksItRead() {
        var screen = F.screenWithBobOpen()
        let missed = (6...9).map { F.message("M-BOB-\($0)", in: F.withBob, seq: $0, from: F.bob, "msg \($0)", at: F.time(15, $0)) }
        let update = screen.handle(.caughtUp(F.withBob, messages: missed, members: []))
        #expect(update.text.count == 4)
        #expect(update.actions == [.markRead(ReceiptPosition(conversationId: F.withBob, seq: 9))])
    }

    @Test func aHugeCatchUpOfTheOpenConversationShowsItsTailAfterALineCountingTheRest() {
        var screen = F.screenWithBobOpen()
        let missed = (6..<2006).map { F.message("M-BOB-\($0)", in: F.withBob, seq: $0, from: F.bob, "msg \($0)", at: F.time(15, 0)) }
        let update = screen.handle(.caughtUp(F.withBob, messages: missed, members: []))
        #expect(update.text.count == 1 + ChatScreen.openCatchUpTail)
        #expect(update.text.first
            == "1950 earlier messages from while offline are not shown (this client has no command to page back to them); the last 50:")
        #expect(update.text[1] == "[15:00] bob: msg 1956")
        #expect(update.text.last == "[15:00] bob: msg 2005")
        #expect(update.actions == [.markRead(ReceiptPosition(conversationId: F.withBob, seq: 2005))])
    }

    @Test func reactReactsToTheNewestMessageSomeoneElseWrote() {
        var screen = F.screenWithBobOpen()
        #expect(screen.handle(.line("/react 👍")).text
            == ["Nothing to react to yet: /react reacts to the newest message someone else wrote here."])
        let message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "lunch?")
        _ = screen.handle(.server(.messageNew(message)))
        let react = screen.handle(.line("/react 👍"))
        #expect(react.actions == [.react(emoji: "👍", to: "M-BOB-6", in: F.withBob)])
        #expect(react.text == [#"Reacting 👍 to "lunch?"…"#])
        var reacted = message
        reacted.reactions = [Message.Reaction(emoji: "👍", userIds: [F.alice.id])]
        #expect(screen.handle(.reacted(reacted)).text == [#"alice reacted 👍 to "lunch?""#])
        // The server's own message.updated for the same reaction says nothing new.
        #expect(screen.handle(.server(.messageUpdated(reacted))).lines.isEmpty)
    }

    @Test func anUpdateSentBeforeTheOwnReactionDoesNotTakeItBack() {
        var screen = F.screenWithBobOpen()
        var message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "lunch?")
        _ = screen.handle(.server(.messageNew(message)))
        _ = screen.handle(.line("/react 👍"))
        var answered = message
        answered.reactions = [Message.Reaction(emoji: "👍", userIds: [F.alice.id])]
        #expect(screen.handle(.reacted(answered)).text == [#"alice reacted 👍 to "lunch?""#])
        // Bob's reaction, sent by the server before alice's, arrives after the answer.
        message.reactions = [Message.Reaction(emoji: "🎉", userIds: [F.bob.id])]
        #expect(screen.handle(.server(.messageUpdated(message))).text == [#"bob reacted 🎉 to "lunch?""#])
        message.reactions.append(Message.Reaction(emoji: "👍", userIds: [F.alice.id]))
        #expect(screen.handle(.server(.messageUpdated(message))).lines.isEmpty)
        // Once the update for her reaction came, a later one without it is a real take-back.
        message.reactions.removeLast()
        #expect(screen.handle(.server(.messageUpdated(message))).text == [#"alice took back 👍 from "lunch?""#])
    }

    @Test func anAnswerOvertakenByLaterUpdatesRepeatsNothing() {
        var screen = F.screenWithBobOpen()
        var message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "lunch?")
        message.reactions = [Message.Reaction(emoji: "🎉", userIds: [F.bob.id])]
        _ = screen.handle(.server(.messageNew(message)))
        _ = screen.handle(.line("/react 👍"))
        var answered = message
        answered.reactions.append(Message.Reaction(emoji: "👍", userIds: [F.alice.id]))
        message.reactions = [Message.Reaction(emoji: "👍", userIds: [F.alice.id])]
        #expect(screen.handle(.server(.messageUpdated(answered))).text == [#"alice reacted 👍 to "lunch?""#])
        #expect(screen.handle(.server(.messageUpdated(message))).text == [#"bob took back 🎉 from "lunch?""#])
        // The answer, older than bob's take-back, neither brings his reaction back nor repeats alice's.
        #expect(screen.handle(.reacted(answered)).lines.isEmpty)
    }

    @Test func aReactionTakenBackIsReportedAndADeletionShowsNoReactionLines() {
        var screen = F.screenWithBobOpen()
        var message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "lunch?")
        message.reactions = [Message.Reaction(emoji: "🎉", userIds: [F.bob.id])]
        _ = screen.handle(.server(.messageNew(message)))
        message.reactions = []
        #expect(screen.handle(.server(.messageUpdated(message))).text == [#"bob took back 🎉 from "lunch?""#])
        message.reactions = [Message.Reaction(emoji: "🎉", userIds: [F.bob.id])]
        _ = screen.handle(.server(.messageUpdated(message)))
        message.body = nil
        message.reactions = []
        message.deletedAt = F.time(14, 30)
        #expect(screen.handle(.server(.messageUpdated(message))).text == ["bob deleted a message."])
    }

    @Test func reactDoesNotReactToAMessageDeletedSince() {
        var screen = F.screenWithBobOpen()
        var message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "oops")
        _ = screen.handle(.server(.messageNew(message)))
        message.body = nil
        message.deletedAt = F.time(14, 4)
        _ = screen.handle(.server(.messageUpdated(message)))
        let update = screen.handle(.line("/react 👍"))
        #expect(update.actions.isEmpty)
        #expect(update.text.first?.hasPrefix("Nothing to react to yet") == true)
    }

    @Test func anEditAndADeletionAreReported() {
        var screen = F.screenWithBobOpen()
        var message = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "on my way")
        _ = screen.handle(.server(.messageNew(message)))
        message.body = "on my way, 5 min"
        message.editedAt = F.time(14, 20)
        #expect(screen.handle(.server(.messageUpdated(message))).text == ["bob edited a message: on my way, 5 min (edited)"])
        var reacted = message
        reacted.reactions = [Message.Reaction(emoji: "👍", userIds: [F.alice.id])]
        #expect(screen.handle(.server(.messageUpdated(reacted))).text == [#"alice reacted 👍 to "on my way, 5 min (edited)""#])
        message.body = nil
        message.deletedAt = F.time(14, 30)
        #expect(screen.handle(.server(.messageUpdated(message))).text == ["bob deleted a message."])
    }

    @Test func quittingSaysByeAndAsksTheShellToStop() {
        var screen = F.screen()
        let update = screen.handle(.line("/quit"))
        #expect(update.text == ["Bye."])
        #expect(update.actions == [.quit])
        #expect(screen.hasEnded)
    }

    @Test func theEndOfInputWithNothingPendingQuitsAtOnce() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.endOfInput)
        #expect(update.text == ["Bye."])
        #expect(update.actions == [.quit])
        #expect(screen.hasEnded)
        #expect(screen.unacknowledgedAtEnd == 0)
    }

    /// Piped input ends at once, while what was typed may still wait for the connection: the client stays for the
    /// acknowledgements, and leaves with the last one.
    @Test func theEndOfInputWaitsForThePendingMessagesAndLeavesWithTheirLastAcknowledgement() {
        var screen = F.screenWithBobOpen(connected: false)
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.line("again"))
        let ended = screen.handle(.endOfInput)
        #expect(ended.text == ["Waiting up to 15 s for 2 messages to be acknowledged…"])
        #expect(ended.actions == [.waitForAcknowledgements(ChatScreen.acknowledgementWait)])
        #expect(!screen.hasEnded)

        _ = screen.handle(.connected)
        _ = screen.handle(.catchUpEnded(failure: nil))
        #expect(screen.handle(.acknowledged(Self.ack("cm-1", seq: 6))).text == ["[14:05] alice: hello"])
        #expect(!screen.hasEnded)
        let last = screen.handle(.acknowledged(Self.ack("cm-2", seq: 7)))
        #expect(last.text == ["[14:05] alice: again", "Bye."])
        #expect(last.actions.last == .quit)
        #expect(screen.hasEnded)
        #expect(screen.unacknowledgedAtEnd == 0)
    }

    @Test func whenTheWaitAtTheEndOfInputEndsTheMessagesStillPendingAreCountedAsNotAcknowledged() {
        var screen = F.screenWithBobOpen(connected: false)
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.endOfInput)
        let update = screen.handle(.acknowledgementWaitEnded)
        #expect(update.text == ["1 message was not acknowledged and may not have been sent.", "Bye."])
        #expect(update.actions == [.quit])
        #expect(screen.hasEnded)
        #expect(screen.unacknowledgedAtEnd == 1)
    }

    /// `/quit` is the person's choice to leave now: a message still pending is only warned about.
    @Test func quittingWithAMessagePendingWarnsAndLeavesAtOnce() {
        var screen = F.screenWithBobOpen(connected: false)
        _ = screen.handle(.line("hello"))
        #expect(screen.handle(.line("/quit")).text == ["1 message was not acknowledged and may not have been sent.", "Bye."])
        #expect(screen.hasEnded)
        #expect(screen.unacknowledgedAtEnd == 0)
    }

    @Test func helpListsEveryCommand() {
        var screen = F.screen()
        let text = screen.handle(.line("/help")).text.joined(separator: "\n")
        for command in ["/list", "/open", "/dm", "/friends", "/accept", "/cancel", "/help", "/quit"] {
            #expect(text.contains(command), "\(command) missing from /help")
        }
    }

    @Test func anUnknownCommandIsAnErrorAndSendsNothing() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.line("/shrug"))
        #expect(update.lines.map(\.tone) == [.error])
        #expect(update.actions.isEmpty)
    }

    @Test func aServerErrorFrameIsShown() {
        var screen = F.screen()
        let update = screen.handle(.server(.error(ChatterErrorBody(code: .validationFailed, message: "Bad frame."))))
        #expect(update.text == ["The server refused a request: VALIDATION_FAILED: Bad frame."])
    }
}
