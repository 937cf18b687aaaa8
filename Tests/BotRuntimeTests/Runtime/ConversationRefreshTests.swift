import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A start's refresh pages `GET /conversations` while the pages are full (`conversationPageSize`), and takes a shorter
/// page as the last.
@Suite struct ConversationRefreshTests {
    /// Two pages of the sandbox: it lists conversations two at a time.
    static let service = SandboxServiceConfiguration(passwordHashIterations: 1_000, conversationPageSize: 2)

    /// Ana opens `count` groups with the bot, which is not running, and says hello in each.
    static func groupsWithAHello(_ count: Int, _ harness: RuntimeHarness) async throws -> [Conversation] {
        var groups: [Conversation] = []
        for index in 1...count {
            let group = try await harness.rest(harness.ana).createGroup(
                title: "group \(index)", memberIds: [harness.botty.user.id])
            try await harness.say("hello \(index)", as: harness.ana, in: group)
            groups.append(group)
        }
        return groups
    }

    @Test func aStartFollowsFullPagesUntilEveryConversationIsKnown() async throws {
        try await RuntimeHarness.run(service: Self.service) { harness in
            let groups = try await Self.groupsWithAHello(5, harness)
            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe)) { $0.conversationPageSize = 2 }
            try await bot.waitUntilIdle()

            for (index, group) in groups.enumerated() {
                #expect(try await harness.texts(in: group, from: harness.botty) == ["echo: hello \(index + 1)"])
            }
            await bot.stop()
        }
    }

    @Test func aPageShorterThanThePageSizeIsTheLast() async throws {
        try await RuntimeHarness.run(service: Self.service) { harness in
            let groups = try await Self.groupsWithAHello(3, harness)
            let probe = BotProbe()
            // The bot expects three a page, so the sandbox's first page of two looks like the last.
            let bot = try await harness.start(ScriptedBot(probe: probe)) { $0.conversationPageSize = 3 }
            try await bot.waitUntilIdle()

            #expect(Set(probe.messages.map(\.conversationId)) == Set(groups.prefix(2).map(\.id)))
            #expect(try await harness.texts(in: groups[2], from: harness.botty).isEmpty)
            await bot.stop()
        }
    }

    /// A service whose conversations changed in the same millisecond share their `updatedAt`, `pageSize` a page.
    static func tyingService(pageSize: Int) -> SandboxServiceConfiguration {
        var service = SandboxServiceConfiguration(passwordHashIterations: 1_000, conversationPageSize: pageSize)
        service.conversationUpdateTimesMayTie = true
        return service
    }

    @Test func aConversationChangedInTheMillisecondOfAFullPagesLastIsAnswered() async throws {
        try await RuntimeHarness.run(service: Self.tyingService(pageSize: 2)) { harness in
            let earlier = try await Self.groupsWithAHello(1, harness)
            await harness.clock.advance(by: .milliseconds(1))
            // Both in one millisecond: the first page of two ends with one of them.
            let tied = try await Self.groupsWithAHello(2, harness)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe())) { $0.conversationPageSize = 2 }
            try await bot.waitUntilIdle()

            #expect(try await harness.texts(in: earlier[0], from: harness.botty) == ["echo: hello 1"])
            for (index, group) in tied.enumerated() {
                #expect(try await harness.texts(in: group, from: harness.botty) == ["echo: hello \(index + 1)"])
            }
            await bot.stop()
        }
    }

    @Test func aConversationChangedInTheMillisecondOfTheLastRefreshIsAnsweredAtTheNextStart() async throws {
        try await RuntimeHarness.run(service: Self.tyingService(pageSize: 100)) { harness in
            _ = try await Self.groupsWithAHello(1, harness)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await first.waitUntilIdle()
            await first.stop()

            // The clock has not moved: the same millisecond as the newest conversation the refresh recorded.
            let group = try await harness.rest(harness.ana).createGroup(title: "same millisecond", memberIds: [harness.botty.user.id])
            try await harness.say("hello again", as: harness.ana, in: group)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await bot.waitUntilIdle()
            #expect(try await harness.texts(in: group, from: harness.botty) == ["echo: hello again"])
            await bot.stop()
        }
    }

    /// Only a refresh page says which conversations changed up to a time: one the bot opened itself (or heard of
    /// live) is newer than those created while the socket was down, which the next refresh must still list.
    @Test func aConversationCreatedWhileTheBotWasOfflineIsAnsweredThoughTheBotOpenedANewerOne() async throws {
        try await RuntimeHarness.run { harness in
            let openDirect = JobKind<User.ID>("open a direct conversation")
            let probe = BotProbe()
            var script = ScriptedBot(probe: probe)
            let ben = harness.ben.user.id
            script.onStartScript = { context in
                // Due before the first reconnect (1 s ± 20 % after the drop below).
                try await context.jobs.schedule(openDirect, after: .milliseconds(500), payload: ben)
            }
            script.onJobScript = { job, context in
                let friend = try #require(try job.payload(of: openDirect))
                _ = try await context.service.directConversation(with: friend)
            }
            let bot = try await harness.start(script)
            try await harness.inject(.dropSocket)
            try await bot.waitUntil(.reconnecting)

            let group = try await harness.rest(harness.ana).createGroup(title: "while away", memberIds: [harness.botty.user.id])
            let hello = try await harness.say("hello", as: harness.ana, in: group)
            await harness.clock.advance(by: .milliseconds(500))
            try await harness.waitUntil("the job opened the direct conversation") { probe.jobs.count == 1 }
            try await bot.waitUntilIdle()
            #expect(await bot.status.state == .reconnecting)

            await harness.clock.advance(by: .milliseconds(800))
            try await harness.waitUntilHandled(upTo: hello.seq, in: group, by: bot)
            #expect(probe.conversationsCreated.contains(group.id))
            #expect(try await harness.texts(in: group, from: harness.botty) == ["echo: hello"])
            await bot.stop()
        }
    }

    /// A new message moves a conversation's `updatedAt` too; `onConversationUpdated` is for its title, avatar and
    /// members.
    @Test func aRefreshReportsUpdatedOnlyTheConversationsWhoseTitleAvatarOrMembersChanged() async throws {
        try await RuntimeHarness.run { harness in
            let groups = try await Self.groupsWithAHello(3, harness)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await first.waitUntilIdle()
            await first.stop()

            await harness.clock.advance(by: .seconds(1))
            let ana = harness.rest(harness.ana)
            let again = try await harness.say("hello again", as: harness.ana, in: groups[0])
            _ = try await ana.updateConversation(groups[1].id, title: "renamed")
            _ = try await ana.addMembers([harness.otto.user.id], to: groups[2].id)

            let probe = BotProbe()
            let bot = try await harness.start(ScriptedBot(probe: probe))
            try await harness.waitUntilHandled(upTo: again.seq, in: groups[0], by: bot)
            try await bot.waitUntilIdle()
            #expect(Set(probe.conversationsUpdated) == [groups[1].id, groups[2].id])
            #expect(probe.conversationsUpdated.count == 2)
            await bot.stop()
        }
    }
}
