import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing

/// A friend request the bot chose to leave pending is asked about once, not again after every restart.
@Suite struct IgnoredFriendRequestTests {
    @Test func anIgnoredRequestIsNotAskedAboutAgainAfterARestart() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.friendRequestDecision = .ignore
            let first = try await harness.start(script)
            let request = try await harness.rest(harness.dan).sendFriendRequest(to: .userId(harness.botty.user.id))
            try await harness.waitUntil("the bot is asked") { script.probe.friendRequests.map(\.id) == [request.id] }
            try await harness.waitUntil("the decision is logged") { harness.logs.contains(.info, "friend request left pending") }
            await first.stop()

            let again = ScriptedBot(probe: BotProbe())
            let restarted = try await harness.start(again)
            try await restarted.waitUntilIdle()  // the synchronization's friend requests are handled
            #expect(again.probe.friendRequests.isEmpty)
            #expect(try await harness.rest(harness.dan).friendRequests().outgoing.map(\.id) == [request.id])
            await restarted.stop()
        }
    }

    @Test func aNewRequestFromTheSameUserIsAskedAboutAgain() async throws {
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.friendRequestDecision = .ignore
            let first = try await harness.start(script)
            let dan = harness.rest(harness.dan)
            let request = try await dan.sendFriendRequest(to: .userId(harness.botty.user.id))
            try await harness.waitUntil("the bot is asked") { script.probe.friendRequests.count == 1 }
            try await harness.waitUntil("the decision is logged") { harness.logs.contains(.info, "friend request left pending") }
            await first.stop()

            try await dan.cancelFriendRequest(request.id)
            let renewed = try await dan.sendFriendRequest(to: .userId(harness.botty.user.id))
            var accepting = ScriptedBot(probe: BotProbe())
            accepting.friendRequestDecision = .accept
            let restarted = try await harness.start(accepting)
            try await harness.waitUntil("the new request is asked about and accepted") {
                try await dan.friends().contains { $0.user.id == harness.botty.user.id }
            }
            #expect(accepting.probe.friendRequests.map(\.id) == [renewed.id])
            await restarted.stop()
        }
    }
}
