import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A bot whose account was deleted and re-created signs in as another user: nothing of the old one survives.
@Suite struct AccountReplacementTests {
    @Test func signingInAsAnotherUserWipesTheOldUsersData() async throws {
        try await RuntimeHarness.run { harness in
            let conversation = try await harness.direct(harness.ana)
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()
            let path = harness.environment().storeURL(forBot: "botty").path
            let store = try await BotStore.open(path: path, clock: harness.clock)
            let stale = try await store.enqueue(MessageSend(
                conversationId: conversation.id, clientMessageId: .random(), content: .text("from the old account")))
            try await store.setValue("old", forKey: "greeting", in: .global)
            let device = try #require(try await store.session()?.deviceId)
            await store.close()
            // The old account is gone: its device no longer signs in. The configured username now names otto.
            _ = try await harness.sandbox.service.revokeDevice(device)
            let configuration = BotConfiguration(
                name: "botty", kind: "test",
                credentials: BotCredentials(username: harness.otto.user.username, password: RuntimeHarness.password),
                friendRequests: .nobody, sendPacing: nil)
            let session = BotSession(configuration: configuration, bot: ScriptedBot(probe: BotProbe()), environment: harness.environment())
            let second = RunningBot(session: session, task: Task { await session.run() })
            try await second.waitUntilLive(harness)
            #expect(await second.status.userId == harness.otto.user.id)
            #expect(await second.status.outboxDepth == 0)
            await second.stop()

            let reopened = try await BotStore.open(path: path, clock: harness.clock)
            #expect(try await reopened.outboxEntry(stale.id) == nil)
            #expect(try await reopened.stateData(forKey: "greeting", in: .global) == nil)
            #expect(try await reopened.conversationCursor(conversation.id) == nil)
            #expect(try await reopened.session()?.userId == harness.otto.user.id)
            await reopened.close()
            #expect(harness.logs.contains(.warning, "account was re-created"))
        }
    }
}
