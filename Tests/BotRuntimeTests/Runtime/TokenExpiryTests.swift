import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// The stored access-token expiry is the one the service gave (`expiresIn`), not an assumed hour.
@Suite struct TokenExpiryTests {
    @Test func aRefreshStoresTheExpiryTheServiceGave() async throws {
        let service = SandboxServiceConfiguration(passwordHashIterations: 1_000, accessTokenLifetime: .seconds(900))
        try await RuntimeHarness.run(service: service) { harness in
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()))
            try await harness.inject(.expireToken)
            try await harness.waitUntil("refreshed and live again") {
                let status = await bot.status
                return status.reconnects == 1 && status.state == .live
            }
            let refreshedAt = harness.clock.now
            await bot.stop()
            let store = try await BotStore.open(path: harness.environment().storeURL(forBot: "botty").path, clock: harness.clock)
            let stored = try #require(try await store.session())
            await store.close()
            #expect(abs(stored.accessTokenExpiresAt.timeIntervalSince(refreshedAt) - 900) < 1)
        }
    }
}
