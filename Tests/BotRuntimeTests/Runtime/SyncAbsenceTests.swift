import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A conversation the sync leaves out has nothing new; only the service's word (`conversation.removed`, or
/// `NOT_FOUND` from REST) removes it.
@Suite struct SyncAbsenceTests {
    @Test func aConversationLeftWhileOfflineIsRemovedOnlyAfterRESTSaysNotFound() async throws {
        try await RuntimeHarness.run { harness in
            let group = try await harness.rest(harness.ana).createGroup(title: "plans", memberIds: [harness.botty.user.id])
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()
            try await harness.rest(harness.ana).removeMember(harness.botty.user.id, from: group.id)

            let probe = BotProbe()
            let second = try await harness.start(ScriptedBot(probe: probe))
            try await harness.waitUntil("the removal is noticed") { probe.conversationsRemoved == [group.id] }
            #expect(harness.logs.contains(.info, "NOT_FOUND"))
            await second.stop()
        }
    }
}
