@testable import BotRuntime
import ChatterBots
import Foundation
import TestSupport
import Testing

/// The hand-off of a bot's store file between its session and the requests that open the file themselves.
@Suite struct StoreHandOffTests {
    @Test func aRequestMayNotTakeAFileASessionClaimed() async {
        let handOff = StoreHandOff()
        await handOff.claim("/data/a.sqlite")
        #expect(!handOff.borrow("/data/a.sqlite"))
        #expect(handOff.borrow("/data/b.sqlite"))
        handOff.release("/data/a.sqlite")
        #expect(handOff.borrow("/data/a.sqlite"))
    }

    @Test func aClaimWaitsUntilTheLastRequestGaveTheFileBack() async {
        let handOff = StoreHandOff()
        #expect(handOff.borrow("/data/a.sqlite"))
        #expect(handOff.borrow("/data/a.sqlite"))
        let claim = Task { await handOff.claim("/data/a.sqlite") }
        await handOff.waitUntilClaimWaits("/data/a.sqlite")
        handOff.giveBack("/data/a.sqlite")
        #expect(!handOff.borrow("/data/a.sqlite"), "claimed while it waits")
        handOff.giveBack("/data/a.sqlite")
        await claim.value
    }

    /// A reload restarts a bot while a quarantine request, through the bot's earlier session, has its file open:
    /// the new session waits for the request instead of stopping as unable to open its store.
    @Test func aNewSessionOfABotWaitsForARequestThatHasItsStoreOpen() async throws {
        try await RuntimeHarness.run { harness in
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()
            let path = harness.environment().storeURL(forBot: "botty").path
            #expect(StoreHandOff.shared.borrow(path))
            let borrowed = try await BotStore.open(path: path, clock: harness.clock)

            let second = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false)
            try await withDeadline(.hangGuard, "the new session to wait for the request") {
                await StoreHandOff.shared.waitUntilClaimWaits(path)
            }
            await borrowed.close()
            StoreHandOff.shared.giveBack(path)
            try await second.waitUntil(.live)
            await second.stop()
        }
    }
}
