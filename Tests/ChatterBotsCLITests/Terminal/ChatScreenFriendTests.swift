@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// `/friends`, `/accept`, `/decline`, `/dm` and the friend events.
@Suite("ChatScreen: friends")
struct ChatScreenFriendTests {
    typealias F = ChatFixtures

    @Test func friendsAreListedWithWhoIsOnlineAndRequestsNumbered() {
        var screen = F.screen(directory: F.directory(incoming: [F.request("R1", from: F.dave, to: F.alice)]))
        _ = screen.handle(.server(.presenceSnapshot([Presence(userId: F.bob.id, isOnline: true)])))
        #expect(screen.handle(.line("/friends")).text == [
            "Friends (/dm <username>):",
            "  ● bob (Bob)  online",
            "  ○ carol (Carol)",
            "Friend requests to you (/accept <n> or /decline <n>):",
            "  1  dave (Dave)",
        ])
    }

    @Test func noFriendsSaysSo() {
        var screen = F.screen(directory: F.directory(conversations: [], friends: []))
        #expect(screen.handle(.line("/friends")).text == ["No friends yet."])
    }

    @Test func requestsThePersonSentAreListedAsWaiting() {
        var directory = F.directory()
        directory.outgoingRequests = [F.request("R9", from: F.alice, to: F.dave)]
        var screen = F.screen(directory: directory)
        #expect(screen.handle(.line("/friends")).text.last == "Waiting for an answer from: dave")
    }

    @Test func anIncomingRequestSaysHowToAcceptIt() {
        var screen = F.screen()
        let update = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        #expect(update.text == ["dave (Dave) wants to be your friend: /accept 1 or /decline 1."])
    }

    @Test func acceptingAsksTheShellThenWelcomesTheNewFriend() {
        var screen = F.screen()
        _ = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        let accept = screen.handle(.line("/accept 1"))
        #expect(accept.actions == [.acceptFriendRequest("R1")])
        #expect(accept.text == ["Accepting dave's friend request…"])
        let accepted = FriendRequestAccepted(requestId: "R1", friend: F.friend(F.dave))
        #expect(screen.handle(.friendRequestAccepted(accepted)).text == ["dave is now your friend: /dm dave to talk."])
        // The server's own friend_request.accepted event says nothing new.
        #expect(screen.handle(.server(.friendRequestAccepted(accepted))).lines.isEmpty)
        #expect(screen.handle(.line("/friends")).text.contains("  ○ dave (Dave)"))
    }

    @Test func decliningAsksTheShellThenForgetsTheRequest() {
        var screen = F.screen()
        _ = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        let decline = screen.handle(.line("/decline 1"))
        #expect(decline.actions == [.declineFriendRequest("R1")])
        #expect(decline.text == ["Declining dave's friend request…"])
        #expect(screen.handle(.friendRequestDeclined("R1")).text == ["Declined dave's friend request."])
        #expect(screen.handle(.line("/decline 1")).text == ["There are no friend requests to decline."])
        #expect(!screen.handle(.line("/friends")).text.contains("  1  dave (Dave)"))
    }

    @Test func anIncomingRequestSuggestsItsAnswersByUsername() {
        var screen = F.screen()
        let update = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        #expect(update.lines.map(\.suggestions) == [[
            ScreenLine.Suggestion(label: "Accept", line: "/accept @dave"), ScreenLine.Suggestion(label: "Decline", line: "/decline @dave"),
        ]])
    }

    @Test func aRequestNamedByItsSenderIsAnsweredWhateverItsNumberBecame() throws {
        var screen = F.screen()
        _ = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        let carol = User(id: "01USERERIN", username: "erin", displayName: "Erin")
        _ = screen.handle(.server(.friendRequestReceived(F.request("R2", from: carol, to: F.alice))))
        _ = screen.handle(.line("/decline 1"))
        _ = screen.handle(.friendRequestDeclined("R1"))
        let accept = screen.handle(.line("/accept ERIN"))
        #expect(accept.actions == [.acceptFriendRequest("R2")])
        let digits = User(id: "01USER007", username: "007", displayName: "Bond")
        _ = screen.handle(.server(.friendRequestReceived(F.request("R3", from: digits, to: F.alice))))
        let suggested = try #require(screen.handle(.line("/friends")).lines.last?.suggestions.first?.line)
        #expect(screen.handle(.line(suggested)).actions == [.acceptFriendRequest("R3")])
        let nobody = screen.handle(.line("/accept dave"))
        #expect(nobody.text == ["There is no friend request from dave to accept."])
        #expect(nobody.actions.isEmpty)
    }

    @Test func acceptingANumberThatIsNotListedIsAnError() {
        var screen = F.screen()
        #expect(screen.handle(.line("/accept 1")).text == ["There are no friend requests to accept."])
        _ = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        let update = screen.handle(.line("/accept 2"))
        #expect(update.text == ["There is no request 2: /friends lists 1."])
        #expect(update.actions.isEmpty)
    }

    @Test func aWithdrawnRequestDisappears() {
        var screen = F.screen()
        _ = screen.handle(.server(.friendRequestReceived(F.request("R1", from: F.dave, to: F.alice))))
        #expect(screen.handle(.server(.friendRequestCancelled(requestId: "R1"))).text == ["dave withdrew their friend request."])
        #expect(screen.handle(.line("/accept 1")).text == ["There are no friend requests to accept."])
    }

    @Test func aFriendWhoLeavesIsAnnounced() {
        var screen = F.screen()
        #expect(screen.handle(.server(.friendRemoved(userId: F.carol.id))).text == ["carol is no longer your friend."])
        #expect(screen.handle(.line("/dm carol")).text == ["carol is not your friend: /friends lists your friends."])
    }

    @Test func directMessageOpensAnExistingConversation() {
        var screen = F.screen()
        let update = screen.handle(.line("/dm bob"))
        #expect(screen.openConversationId == F.withBob)
        #expect(update.actions == [.loadHistory(F.withBob, beforeSeq: 6, limit: 20)])
    }

    @Test func directMessageStartsAConversationWithAFriendWithoutOne() {
        var screen = F.screen()
        let update = screen.handle(.line("/dm carol"))
        #expect(update.actions == [.openDirectConversation(with: F.carol.id)])
        let opened = screen.handle(.conversationOpened(F.conversation(F.withCarol, members: [F.alice, F.carol])))
        #expect(opened.text == ["── carol · direct conversation · conversation 3 ──"])
        #expect(opened.actions == [.loadHistory(F.withCarol, beforeSeq: 1, limit: 20)])
        #expect(screen.openConversationId == F.withCarol)
    }

    /// Piped input (`/dm carol` then text) gets its text to the conversation the server opens, not nowhere.
    @Test func textTypedWhileADirectConversationOpensGoesToItOnceOpen() {
        var screen = F.screen()
        _ = screen.handle(.line("/dm carol"))
        let typed = screen.handle(.line("hello"))
        #expect(typed.lines.isEmpty)
        #expect(typed.actions.isEmpty)
        let opened = screen.handle(.conversationOpened(F.conversation(F.withCarol, members: [F.alice, F.carol])))
        let hello = MessageSend(conversationId: F.withCarol, clientMessageId: "cm-1", content: .text("hello"))
        #expect(opened.actions == [.loadHistory(F.withCarol, beforeSeq: 1, limit: 20), .send(hello)])
        #expect(screen.pendingMessages == [hello])
    }

    @Test func textTypedForADirectConversationThatFailedToOpenIsNotSentToTheOneOpenBefore() {
        var screen = F.screenWithBobOpen()
        _ = screen.handle(.line("/dm carol"))
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.line("/friends"))
        let failed = screen.handle(.directConversationFailed(with: F.carol.id, reason: "NOT_FRIENDS"))
        #expect(Array(failed.text.prefix(3)) == [
            "Could not open the conversation with carol: NOT_FRIENDS",
            "✗ Not sent: \"hello\": no conversation was opened.",
            "Friends (/dm <username>):",
        ])
        #expect(failed.actions.isEmpty)
        #expect(screen.pendingMessages.isEmpty)
        #expect(screen.openConversationId == F.withBob)
    }

    @Test func theEndOfInputWaitsForTheDirectConversationThenForItsMessages() {
        var screen = F.screen()
        _ = screen.handle(.line("/dm carol"))
        _ = screen.handle(.line("hello"))
        let ended = screen.handle(.endOfInput)
        #expect(ended.text == ["Waiting up to 15 s for the conversation with carol to open…"])
        #expect(ended.actions == [.waitForAcknowledgements(ChatScreen.acknowledgementWait)])
        _ = screen.handle(.conversationOpened(F.conversation(F.withCarol, members: [F.alice, F.carol])))
        #expect(!screen.hasEnded)
        let ack = MessageAck(
            clientMessageId: "cm-1", messageId: "M-OWN-1", conversationId: F.withCarol, seq: 1, createdAt: F.time(14, 5))
        #expect(screen.handle(.acknowledged(ack)).actions.last == .quit)
        #expect(screen.hasEnded)
        #expect(screen.unacknowledgedAtEnd == 0)
    }

    @Test func textStillWaitingForItsConversationWhenTheWaitEndsCountsAsNotSent() {
        var screen = F.screen()
        _ = screen.handle(.line("/dm carol"))
        _ = screen.handle(.line("hello"))
        _ = screen.handle(.endOfInput)
        let update = screen.handle(.acknowledgementWaitEnded)
        #expect(update.text == ["1 message was not sent: the conversation did not open.", "Bye."])
        #expect(screen.hasEnded)
        #expect(screen.unacknowledgedAtEnd == 1)
    }

    @Test func directMessageToSomeoneWhoIsNotAFriendIsRefused() {
        var screen = F.screen()
        let update = screen.handle(.line("/dm dave"))
        #expect(update.text == ["dave is not your friend: /friends lists your friends."])
        #expect(update.actions.isEmpty)
    }

    @Test func aFailedRequestIsShownAsAnError() {
        var screen = F.screen()
        let update = screen.handle(.requestFailed("Could not open the conversation: NOT_FRIENDS"))
        #expect(update.lines == [ScreenLine("Could not open the conversation: NOT_FRIENDS", tone: .error)])
    }
}
