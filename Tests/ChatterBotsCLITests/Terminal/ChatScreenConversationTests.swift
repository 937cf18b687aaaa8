@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Signing in, the conversation list with unread counts, opening conversations and their history.
@Suite("ChatScreen: conversations")
struct ChatScreenConversationTests {
    typealias F = ChatFixtures

    @Test func signingInSaysWhoThePersonIs() {
        var screen = ChatScreen()
        #expect(screen.handle(.signedIn(F.alice)).text == ["Signed in as alice (Alice)."])
    }

    @Test func theFirstDirectoryListsConversationsNumberedByRecentActivityWithUnreadCounts() {
        var screen = ChatScreen()
        _ = screen.handle(.signedIn(F.alice))
        let update = screen.handle(.directoryLoaded(F.directory()))
        #expect(update.text == [
            "Conversations (/open <n>):",
            "  1  bob             2 unread  bob: see you at 8?",
            "  2  Team (group)              you: lunch?",
        ])
    }

    @Test func unreadIsWhatTheReadWatermarkLeaves() {
        let screen = F.screen()
        #expect(screen.unreadCount(in: F.withBob) == 2)
    }

    @Test func aConversationWhoseLastMessageIsOwnHasNothingUnread() {
        let screen = F.screen()
        #expect(screen.unreadCount(in: F.team) == 0)
    }

    @Test func noConversationsYetSaysHowToStartOne() {
        var screen = ChatScreen()
        _ = screen.handle(.signedIn(F.alice))
        let update = screen.handle(.directoryLoaded(F.directory(conversations: [])))
        #expect(update.text == ["No conversations yet: /dm <username> starts one with a friend (/friends lists them)."])
    }

    @Test func pendingFriendRequestsAreMentionedAtStart() {
        var screen = ChatScreen()
        _ = screen.handle(.signedIn(F.alice))
        let update = screen.handle(.directoryLoaded(F.directory(incoming: [F.request("R1", from: F.dave, to: F.alice)])))
        #expect(update.text.last == "1 friend request waiting: /friends.")
    }

    @Test func connectingCatchesUpFromTheNewestSeqOfEachConversation() {
        var screen = F.screen(connected: false)
        let update = screen.handle(.connected)
        #expect(update.text == ["Connected: messages arrive live. Type /help for the commands."])
        #expect(update.actions == [
            .catchUp(SyncRequest(conversations: [F.withBob: 5, F.team: 2]), refreshDirectory: false)
        ])
    }

    @Test func listRenumbersByRecentActivity() {
        var screen = F.screen()
        _ = screen.handle(.server(.messageNew(F.message("M-TEAM-3", in: F.team, seq: 3, from: F.carol, "yes!", at: F.time(14, 0)))))
        let update = screen.handle(.line("/list"))
        #expect(update.text == [
            "Conversations (/open <n>):",
            "  1  Team (group)    1 unread  carol: yes!",
            "  2  bob             2 unread  bob: see you at 8?",
        ])
        _ = screen.handle(.line("/open 1"))
        #expect(screen.openConversationId == F.team)
    }

    @Test func openingByNumberShowsAHeadingAndFetchesRecentMessages() {
        var screen = F.screen()
        let update = screen.handle(.line("/open 1"))
        #expect(update.text == ["── bob · direct conversation · conversation 1 ──"])
        #expect(update.actions == [.loadHistory(F.withBob, beforeSeq: 6, limit: 20)])
        #expect(screen.openConversationId == F.withBob)
    }

    @Test func openingClearsTheUnreadCount() {
        var screen = F.screen()
        _ = screen.handle(.line("/open 1"))
        #expect(screen.unreadCount(in: F.withBob) == 0)
    }

    @Test func openingByNameFindsAFriendsDirectConversationOrAGroupTitle() {
        var screen = F.screen()
        _ = screen.handle(.line("/open BOB"))
        #expect(screen.openConversationId == F.withBob)
        _ = screen.handle(.line("/open team"))
        #expect(screen.openConversationId == F.team)
    }

    @Test func openingByAUniquePrefixWorks() {
        var screen = F.screen()
        _ = screen.handle(.line("/open te"))
        #expect(screen.openConversationId == F.team)
    }

    @Test func anAmbiguousNameListsTheCandidatesWithTheirNumbers() {
        var screen = F.screen(directory: F.directory(conversations: [
            F.conversation(F.team, kind: .group, title: "Team A", members: [F.alice, F.bob], updatedAt: F.time(10, 0)),
            F.conversation("01CONVTEAMB", kind: .group, title: "Team B", members: [F.alice, F.carol], updatedAt: F.time(9, 0)),
        ]))
        let update = screen.handle(.line("/open team"))
        #expect(update.text == ["\"team\" could be Team A (1), Team B (2): open one by its number."])
        #expect(screen.openConversationId == nil)
    }

    @Test func anUnknownNameOfAFriendSuggestsStartingAConversation() {
        var screen = F.screen()
        let update = screen.handle(.line("/open carol"))
        #expect(update.text == ["No conversation is called \"carol\": /dm carol starts one."])
        #expect(update.lines.first?.tone == .error)
    }

    @Test func aNumberBeyondTheListSaysWhereTheNumbersAre() {
        var screen = F.screen()
        let update = screen.handle(.line("/open 7"))
        #expect(update.text == ["There is no conversation 7: /list shows the numbers."])
        #expect(update.actions.isEmpty)
    }

    @Test func historyShowsTimesSendersAndReceiptMarksOnOwnMessages() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        let update = screen.handle(.historyLoaded(F.withBob, [
            F.message("M-BOB-3", in: F.withBob, seq: 3, from: F.alice, "hi", at: F.time(12, 58)),
            F.message("M-BOB-4", in: F.withBob, seq: 4, from: F.alice, "are we on tonight?", at: F.time(12, 59)),
            F.message("M-BOB-5", in: F.withBob, seq: 5, from: F.bob, "see you at 8?", at: F.time(13, 0)),
        ]))
        #expect(update.text == [
            "[12:58] alice: hi  ✓✓",
            "[12:59] alice: are we on tonight?  ✓✓",
            "[13:00] bob: see you at 8?",
        ])
        #expect(update.lines.map(\.tone) == [.ownMessage, .ownMessage, .message])
    }

    @Test func showingHistoryMarksTheConversationRead() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        let update = screen.handle(.historyLoaded(F.withBob, [
            F.message("M-BOB-5", in: F.withBob, seq: 5, from: F.bob, "see you at 8?", at: F.time(13, 0))
        ]))
        #expect(update.actions == [.markRead(ReceiptPosition(conversationId: F.withBob, seq: 5))])
    }

    @Test func anEmptyConversationInvitesAHello() {
        var screen = F.screen(directory: F.directory(conversations: [F.conversation(F.withCarol, members: [F.alice, F.carol])]))
        _ = screen.handle(.line("/open carol"))
        let update = screen.handle(.historyLoaded(F.withCarol, []))
        #expect(update.text == ["No messages yet: type a line to say hello."])
    }

    @Test func historyOfAConversationNoLongerOpenIsNotShown() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        _ = screen.handle(.line("/open team"))
        let update = screen.handle(.historyLoaded(F.withBob, [F.message("M-BOB-5", in: F.withBob, seq: 5, from: F.bob, "late")]))
        #expect(update.lines.isEmpty)
    }

    @Test func aMessageThatArrivesWhileTheHistoryLoadsShowsOnceBelowIt() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        let live = F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "hello?", at: F.time(14, 0))
        #expect(screen.handle(.server(.messageNew(live))).lines.isEmpty)
        let update = screen.handle(.historyLoaded(F.withBob, [
            F.message("M-BOB-5", in: F.withBob, seq: 5, from: F.bob, "see you at 8?", at: F.time(13, 0)), live,
        ]))
        #expect(update.text == ["[13:00] bob: see you at 8?", "[14:00] bob: hello?"])
    }

    @Test func aMessageHeldForTheHistoryShowsWhenTheHistoryCannotBeLoaded() {
        var screen = F.screen()
        _ = screen.handle(.line("/open bob"))
        _ = screen.handle(.server(.messageNew(F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "hello?", at: F.time(14, 0)))))
        let update = screen.handle(.historyFailed(F.withBob, reason: "timed out"))
        #expect(update.text == ["Could not load the messages: timed out", "[14:00] bob: hello?"])
    }

    @Test func aPageAsLongAsAskedSaysHowManyUnreadMessagesItLeavesOut() {
        var screen = F.screen(directory: F.directory(conversations: [
            F.conversation(F.withCarol, members: [F.alice, F.carol], lastSeq: 600, read: [F.alice.id: 50]),
        ]))
        let opened = screen.handle(.line("/open carol"))
        #expect(opened.actions.contains(.loadHistory(F.withCarol, beforeSeq: 601, limit: 500)), "every unread one, up to a page")
        let page = (101...600).map { F.message("M-C-\($0)", in: F.withCarol, seq: $0, from: F.carol, "m\($0)") }
        let update = screen.handle(.historyLoaded(F.withCarol, page))
        #expect(update.text.first == "50 earlier unread messages are not shown.")
        #expect(update.actions.contains(.markRead(ReceiptPosition(conversationId: F.withCarol, seq: 600))))
    }

    @Test func messageTimesUseTheScreensTimeZone() {
        var screen = ChatScreen(timeZone: TimeZone(identifier: "Europe/Lisbon") ?? .current)
        _ = screen.handle(.signedIn(F.alice))
        _ = screen.handle(.directoryLoaded(F.directory()))
        _ = screen.handle(.line("/open bob"))
        let update = screen.handle(.historyLoaded(F.withBob, [F.message("M-BOB-5", in: F.withBob, seq: 5, from: F.bob, "hi", at: F.time(13, 0))]))
        #expect(update.text == ["[14:00] bob: hi"])  // WEST, UTC+1, on 22 October
    }

    @Test func aMultiLineMessageContinuesOnIndentedLines() {
        var screen = F.screenWithBobOpen()
        let update = screen.handle(.server(.messageNew(F.message("M-BOB-6", in: F.withBob, seq: 6, from: F.bob, "one\ntwo", at: F.time(14, 0)))))
        #expect(update.text == ["[14:00] bob: one", "          two"])
    }

    @Test func mediaDeletedAndSystemMessagesSayWhatTheyAre() {
        var screen = F.screen()
        _ = screen.handle(.line("/open team"))
        var deleted = F.message("M-T-5", in: F.team, seq: 5, from: F.carol, "", at: F.time(14, 2))
        deleted.body = nil
        deleted.deletedAt = F.time(14, 3)
        let update = screen.handle(.historyLoaded(F.team, [
            F.message("M-T-3", in: F.team, seq: 3, from: F.bob, "the view", at: F.time(14, 0), kind: .photo),
            F.message("M-T-4", in: F.team, seq: 4, from: F.bob, "carol joined", at: F.time(14, 1), kind: .system),
            deleted,
        ]))
        #expect(update.text == ["[14:00] bob: (photo) the view", "[14:01] * carol joined", "[14:02] carol: (deleted)"])
    }

    @Test func aMediaMessageLineCarriesItsFileAndADeletedOneNone() {
        var screen = F.screen()
        _ = screen.handle(.line("/open team"))
        var photo = F.message("M-T-6", in: F.team, seq: 6, from: F.bob, "the view", at: F.time(14, 0), kind: .photo)
        photo.mediaId = Media.ID("MEDIA-1")
        var deleted = F.message("M-T-7", in: F.team, seq: 7, from: F.bob, "", at: F.time(14, 1), kind: .photo)
        deleted.mediaId = Media.ID("MEDIA-2")
        deleted.body = nil
        deleted.deletedAt = F.time(14, 2)
        let update = screen.handle(.historyLoaded(F.team, [photo, deleted]))
        #expect(update.lines.map(\.media) == [ScreenLine.Media(id: Media.ID("MEDIA-1"), kind: .photo), nil])
    }

    @Test func aMemberWithoutAKnownNameIsLookedUpOnce() {
        var screen = ChatScreen()
        _ = screen.handle(.signedIn(F.alice))
        let group = F.conversation(F.team, kind: .group, title: "Team", members: [F.alice, F.dave])
        let update = screen.handle(.directoryLoaded(F.directory(conversations: [group], friends: [])))
        #expect(update.actions == [.lookUpUser(F.dave.id)])
        _ = screen.handle(.line("/open team"))
        let history = screen.handle(.historyLoaded(F.team, [F.message("M-T-1", in: F.team, seq: 1, from: F.dave, "hi")]))
        #expect(history.text == ["[14:03] user-erdave: hi"])
        #expect(!history.actions.contains(.lookUpUser(F.dave.id)))
        _ = screen.handle(.userLoaded(F.dave))
        let next = screen.handle(.server(.messageNew(F.message("M-T-2", in: F.team, seq: 2, from: F.dave, "again"))))
        #expect(next.text == ["[14:03] dave: again"])
    }

    @Test func aNewConversationGetsTheNextNumber() {
        var screen = F.screen()
        let created = F.conversation(F.withCarol, members: [F.alice, F.carol])
        let update = screen.handle(.server(.conversationCreated(created)))
        #expect(update.text == ["carol started a conversation with you: /open 3."])
        _ = screen.handle(.line("/open 3"))
        #expect(screen.openConversationId == F.withCarol)
    }

    @Test func beingAddedToAGroupSaysSo() {
        var screen = F.screen()
        let group = F.conversation("01CONVNEW", kind: .group, title: "Climbing", members: [F.alice, F.bob, F.carol])
        #expect(screen.handle(.server(.conversationCreated(group))).text == ["You were added to Climbing: /open 3."])
    }

    @Test func beingRemovedFromTheOpenConversationClosesIt() {
        var screen = F.screen()
        _ = screen.handle(.line("/open team"))
        let update = screen.handle(.server(.conversationRemoved(conversationId: F.team)))
        #expect(update.text == ["Team is gone: you were removed from it."])
        #expect(screen.openConversationId == nil)
        #expect(screen.handle(.line("anyone?")).text.first?.hasPrefix("No conversation is open") == true)
    }

    @Test func aReloadedDirectoryAnnouncesConversationsMadeWhileOffline() {
        var screen = F.screen()
        var directory = F.directory()
        directory.conversations.append(F.conversation(F.withCarol, members: [F.alice, F.carol]))
        let update = screen.handle(.directoryLoaded(directory))
        #expect(update.text == ["New conversation: carol (/open 3)."])
    }
}

extension ChatScreenConversationTests {
    @Test func aDirectoryThatFailedToLoadIsLoadedOnceConnected() {
        var screen = ChatScreen(timeZone: TimeZone(identifier: "UTC") ?? .current)
        _ = screen.handle(.signedIn(F.alice))
        #expect(screen.handle(.requestFailed("Could not load your conversations")).lines.map(\.tone) == [.error])
        #expect(screen.handle(.connected).actions == [.catchUp(SyncRequest(conversations: [:]), refreshDirectory: true)])
        #expect(screen.handle(.directoryLoaded(F.directory())).text.first == "Conversations (/open <n>):")
    }
}
