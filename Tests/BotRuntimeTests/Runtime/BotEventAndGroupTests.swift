import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// Events and context calls beyond messages, end to end: withdrawn friend requests, profile changes, groups.
@Suite struct BotEventAndGroupTests {
    /// A bot that leaves friend requests pending, and dan's request to it, once the bot was asked.
    static func requestLeftPending(
        in harness: RuntimeHarness
    ) async throws -> (bot: RunningBot, probe: BotProbe, dan: ChatterRESTClient, request: FriendRequest) {
        let probe = BotProbe()
        var script = ScriptedBot(probe: probe)
        script.friendRequestDecision = .ignore
        let bot = try await harness.start(script)
        let dan = harness.rest(harness.dan)
        let request = try await dan.sendFriendRequest(to: .userId(harness.botty.user.id))
        try await harness.waitUntil("the bot is asked") { probe.friendRequests.map(\.id) == [request.id] }
        return (bot, probe, dan, request)
    }

    @Test func aWithdrawnFriendRequestReachesOnFriendRequestCancelled() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, dan, request) = try await Self.requestLeftPending(in: harness)
            try await dan.cancelFriendRequest(request.id)
            try await harness.waitUntil("the withdrawal reaches the bot") { probe.cancelledRequests == [request.id] }
            await bot.stop()
        }
    }

    @Test func aWithdrawalThatArrivesTwiceReachesOnFriendRequestCancelledOnce() async throws {
        try await RuntimeHarness.run { harness in
            let (bot, probe, dan, request) = try await Self.requestLeftPending(in: harness)
            try await harness.inject(.duplicateEvents(types: ["friend_request.cancelled"], copies: 1))

            try await dan.cancelFriendRequest(request.id)
            // Sent after both copies: once it is handled, so are they.
            let direct = try await harness.direct(harness.ana)
            let after = try await harness.say("after the withdrawal", as: harness.ana, in: direct)
            try await harness.waitUntilHandled(upTo: after.seq, in: direct, by: bot)

            #expect(probe.cancelledRequests == [request.id])
            await bot.stop()
        }
    }

    @Test func aFriendsProfileChangeReachesOnUserUpdated() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            _ = try await harness.rest(harness.ana).updateMe(displayName: "Ana Souza")
            try await harness.waitUntil("the change reaches the bot") {
                probe.updatedUsers.map(\.displayName) == ["Ana Souza"]
            }
            #expect(probe.updatedUsers.map(\.id) == [harness.ana.user.id])
            await bot.stop()
        }
    }

    /// The service may send an event twice, and the refresh after a reconnect may find a change whose live event
    /// still waits: one change reaches the handler once.
    @Test func aProfileChangeThatArrivesTwiceReachesOnUserUpdatedOnce() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            try await bot.waitUntilIdle()
            try await harness.inject(.duplicateEvents(types: ["user.updated"], copies: 1))
            _ = try await harness.rest(harness.ana).updateMe(displayName: "Ana Souza")
            try await harness.waitUntil("the second copy is found known") {
                harness.logs.contains(.debug, "profile change already known")
            }
            #expect(probe.updatedUsers.map(\.displayName) == ["Ana Souza"])
            await bot.stop()
        }
    }

    @Test func aProfileChangedWhileTheBotWasOfflineReachesOnUserUpdatedOnce() async throws {
        try await RuntimeHarness.run { harness in
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await first.waitUntilIdle()
            await first.stop()
            _ = try await harness.rest(harness.ana).updateMe(displayName: "Ana Souza")

            let probe = BotProbe()
            let second = try await harness.start(ScriptedBot(probe: probe))
            try await second.waitUntilIdle()
            #expect(probe.updatedUsers.map(\.displayName) == ["Ana Souza"])
            #expect(probe.updatedUsers.map(\.id) == [harness.ana.user.id])
            await second.stop()

            let later = BotProbe()
            let third = try await harness.start(ScriptedBot(probe: later))
            try await third.waitUntilIdle()
            #expect(later.updatedUsers.isEmpty, "the change was reported once")
            await third.stop()
        }
    }

    @Test func aProfileChangeHeardLiveIsNotReportedAgainAfterARestart() async throws {
        try await RuntimeHarness.run { harness in
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            try await bot.waitUntilIdle()
            _ = try await harness.rest(harness.ana).updateMe(displayName: "Ana Souza")
            try await harness.waitUntil("the change reaches the bot") { probe.updatedUsers.count == 1 }
            await bot.stop()

            let later = BotProbe()
            let restarted = try await harness.start(ScriptedBot(probe: later))
            try await restarted.waitUntilIdle()
            #expect(later.updatedUsers.isEmpty)
            await restarted.stop()
        }
    }

    @Test func repliesFromEventsWithoutAKeyAreAllSentBesideTheMessagesOwnReply() async throws {
        try await RuntimeHarness.run { harness in
            let answered = Mutex<IncomingMessage?>(nil)
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                try await context.reply(to: message, "echo: \(message.text)")
                answered.withLock { $0 = message }
            }
            script.onUserUpdatedScript = { user, context in
                guard let message = answered.withLock({ $0 }) else { return }
                try await context.reply(to: message, "nice name, \(user.displayName)")
            }
            let bot = try await harness.start(script)
            let conversation = try await harness.direct(harness.ana)
            try await harness.say("hi", as: harness.ana, in: conversation)
            try await harness.waitUntil("the message is answered") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hi"]
            }
            _ = try await harness.rest(harness.ana).updateMe(displayName: "Ana Souza")
            try await harness.waitUntil("the event's reply to the same message arrives too") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hi", "nice name, Ana Souza"]
            }
            _ = try await harness.rest(harness.ana).updateMe(displayName: "Ana S.")
            try await harness.waitUntil("and another event's reply to it") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: hi", "nice name, Ana Souza", "nice name, Ana S."]
            }
            await bot.stop()
        }
    }

    @Test func aBotCreatesAGroupManagesItsMembersMutesItAndLeaves() async throws {
        try await RuntimeHarness.run { harness in
            let ana = harness.ana.user.id, ben = harness.ben.user.id, cleo = harness.cleo.user.id
            let created = GroupSlot()
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                switch message.text {
                case "make a group":
                    let group = try await context.service.createGroup(title: "Team", memberIds: [ana])
                    created.set(group)
                    let grown = try await context.service.addMembers([ben], to: group.id)
                    try await context.service.setMuted(true, conversation: group.id)
                    let listed = try await context.service.conversations(updatedSince: nil).first { $0.id == group.id }
                    try await context.service.removeMember(ben, from: group.id)
                    try await context.reply(to: message, "members \(grown.members.count), muted \(listed?.muted == true)")
                case "add cleo":
                    guard let group = created.group else { throw HarnessError("no group yet") }
                    do {
                        _ = try await context.service.addMembers([cleo], to: group.id)
                        try await context.reply(to: message, "added")
                    } catch let error as ChatterAPIError {
                        try await context.reply(to: message, "refused: \(error.code)")
                    }
                default:
                    guard let group = created.group else { throw HarnessError("no group yet") }
                    try await context.service.leaveConversation(group.id)
                    try await context.reply(to: message, "left")
                }
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("make a group", as: harness.ana, in: direct)
            try await harness.waitUntil("the group is made") {
                try await harness.texts(in: direct, from: harness.botty) == ["members 3, muted true"]
            }
            let group = try #require(created.group)
            let seenByAna = try await harness.rest(harness.ana).conversation(group.id)
            #expect(seenByAna.title == "Team")
            #expect(Set(seenByAna.members.map(\.userId)) == [harness.botty.user.id, ana])
            #expect(!seenByAna.muted, "muting is the bot's own setting")
            await #expect(throws: ChatterAPIError.self) { try await harness.rest(harness.ben).conversation(group.id) }

            try await harness.say("add cleo", as: harness.ana, in: direct)
            try await harness.waitUntil("adding a stranger is refused") {
                try await harness.texts(in: direct, from: harness.botty).last == "refused: NOT_FRIENDS"
            }

            try await harness.say("leave", as: harness.ana, in: direct)
            try await harness.waitUntil("the bot left") { try await harness.texts(in: direct, from: harness.botty).last == "left" }
            #expect(try await harness.rest(harness.ana).conversation(group.id).members.map(\.userId) == [ana])
            await bot.stop()
        }
    }
}

/// The group a test bot created, shared between its handler and the test.
private final class GroupSlot: Sendable {
    private let value = Mutex<Conversation?>(nil)
    var group: Conversation? { value.withLock { $0 } }
    func set(_ group: Conversation) { value.withLock { $0 = group } }
}
