import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// The context's service group carries out each call against the service, end to end: history, people, the bot's
/// own profile, groups.
@Suite struct BotContextGroupTests {
    @Test func historyPagesBackThroughSeveralPagesNewestFirst() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                guard message.text == "history" else { return }
                var texts: [String] = []
                for try await earlier in context.service.history(of: message.conversationId, before: message.seq, pageSize: 2) {
                    texts.append(earlier.body ?? "")
                }
                try await context.reply(to: message, texts.joined(separator: ","))
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            for text in ["one", "two", "three", "four", "five"] {
                try await harness.say(text, as: harness.ana, in: direct)
            }
            try await harness.say("history", as: harness.ana, in: direct)
            try await harness.waitUntil("the bot read the history back") {
                try await harness.texts(in: direct, from: harness.botty) == ["five,four,three,two,one"]
            }
            await bot.stop()
        }
    }

    @Test func aUserIsFoundByUsernameAndById() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                let username = String(message.text.dropFirst("who is ".count))
                guard let found = try await context.service.user(named: username) else {
                    try await context.reply(to: message, "nobody")
                    return
                }
                let byId = try await context.service.user(found.id)
                try await context.reply(to: message, "\(byId.displayName) (\(byId.id.rawValue))")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("who is \(harness.ben.user.username)", as: harness.ana, in: direct)
            try await harness.say("who is nobody_here", as: harness.ana, in: direct)
            let ben = harness.ben.user
            try await harness.waitUntil("both look-ups are answered") {
                try await harness.texts(in: direct, from: harness.botty) == ["\(ben.displayName) (\(ben.id.rawValue))", "nobody"]
            }
            await bot.stop()
        }
    }

    @Test func theBotChangesItsOwnNameAndPrivacy() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                _ = try await context.service.updateProfile(displayName: "Botty Prime", privacy: PrivacySettings(lastSeen: .nobody))
                let profile = try await context.service.profile()
                try await context.reply(to: message, "\(profile.displayName), last seen: \(profile.privacy.lastSeen.rawValue)")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("rename yourself", as: harness.ana, in: direct)
            try await harness.waitUntil("the bot reports its new profile") {
                try await harness.texts(in: direct, from: harness.botty) == ["Botty Prime, last seen: nobody"]
            }
            #expect(try await harness.rest(harness.ana).user(harness.botty.user.id).displayName == "Botty Prime")
            await bot.stop()
        }
    }

    @Test func theBotRenamesAGroupAndChangesItsAvatar() async throws {
        try await RuntimeHarness.run { harness in
            let created = Mutex<Conversation.ID?>(nil)
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                guard message.text == "make a group" else { return }
                let group = try await context.service.createGroup(title: "Team", memberIds: [message.senderId])
                created.withLock { $0 = group.id }
                let renamed = try await context.service.updateGroup(group.id, title: "Dream Team", avatarUrl: "https://example.com/team.png")
                try await context.reply(to: message, renamed.title ?? "untitled")
            }
            let bot = try await harness.start(script)
            let direct = try await harness.direct(harness.ana)
            try await harness.say("make a group", as: harness.ana, in: direct)
            try await harness.waitUntil("the group is renamed") {
                try await harness.texts(in: direct, from: harness.botty) == ["Dream Team"]
            }
            let groupId = try #require(created.withLock { $0 })
            let seenByAna = try await harness.rest(harness.ana).conversation(groupId)
            #expect(seenByAna.title == "Dream Team")
            #expect(seenByAna.avatarUrl == "https://example.com/team.png")
            await bot.stop()
        }
    }
}
