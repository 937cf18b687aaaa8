@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import Foundation
import TestSupport
import Testing

/// The hand-off of a bot's store file between its session and the requests that open the file themselves.
@Suite struct StoreHandOffTests {
    /// When the requests' waits begin, and when they end (the clocks are virtual: nothing waits for real).
    static let start = ManualClock.defaultStart
    static let bound = ManualClock.defaultStart.addingTimeInterval(30)

    /// The request has the file: a session's claim waits until it gives the file back.
    private static func expectAClaimWaitsForTheRequest(_ handOff: StoreHandOff<String>) async {
        let claim = Task { await handOff.claim("/data/a.sqlite") }
        await handOff.waitUntilClaimWaits("/data/a.sqlite")
        handOff.giveBack("/data/a.sqlite")
        await claim.value
    }

    @Test func aRequestMayNotTakeAFileASessionClaimed() async {
        let handOff = StoreHandOff<String>()
        await handOff.claim("/data/a.sqlite")
        #expect(!handOff.borrow("/data/a.sqlite"))
        #expect(handOff.borrow("/data/b.sqlite"))
        handOff.release("/data/a.sqlite")
        #expect(handOff.borrow("/data/a.sqlite"))
    }

    @Test func aClaimWaitsUntilTheLastRequestGaveTheFileBack() async {
        let handOff = StoreHandOff<String>()
        #expect(handOff.borrow("/data/a.sqlite"))
        #expect(handOff.borrow("/data/a.sqlite"))
        let claim = Task { await handOff.claim("/data/a.sqlite") }
        await handOff.waitUntilClaimWaits("/data/a.sqlite")
        handOff.giveBack("/data/a.sqlite")
        #expect(!handOff.borrow("/data/a.sqlite"), "claimed while it waits")
        handOff.giveBack("/data/a.sqlite")
        await claim.value
    }

    @Test func aRequestWhileNoSessionClaimsTheFileTakesItAtOnce() async {
        let handOff = StoreHandOff<String>()
        let turn = await handOff.request("/data/a.sqlite", waitingUntil: Self.bound, on: ManualClock())
        guard case .borrowed = turn else { Issue.record("the request got \(turn)"); return }
        await Self.expectAClaimWaitsForTheRequest(handOff)
    }

    @Test func aRequestWhileASessionOpensTheStoreWaitsAndThenGoesThroughThatSession() async {
        let handOff = StoreHandOff<String>()
        await handOff.claim("/data/a.sqlite")
        let request = Task { await handOff.request("/data/a.sqlite", waitingUntil: Self.bound, on: ManualClock()) }
        await handOff.waitUntilRequestWaits("/data/a.sqlite")
        handOff.opened("/data/a.sqlite", by: "the new session")
        let turn = await request.value
        guard case .session("the new session") = turn else { Issue.record("the request got \(turn)"); return }
    }

    @Test func aRequestWhileASessionHasTheStoreOpenGoesThroughItAtOnce() async {
        let handOff = StoreHandOff<String>()
        await handOff.claim("/data/a.sqlite")
        handOff.opened("/data/a.sqlite", by: "the new session")
        let turn = await handOff.request("/data/a.sqlite", waitingUntil: Self.bound, on: ManualClock())
        guard case .session("the new session") = turn else { Issue.record("the request got \(turn)"); return }
    }

    @Test func aRequestWaitingForAClaimThatEndsWithoutOpeningTakesTheFile() async {
        let handOff = StoreHandOff<String>()
        await handOff.claim("/data/a.sqlite")
        let request = Task { await handOff.request("/data/a.sqlite", waitingUntil: Self.bound, on: ManualClock()) }
        await handOff.waitUntilRequestWaits("/data/a.sqlite")
        handOff.release("/data/a.sqlite")
        let turn = await request.value
        guard case .borrowed = turn else { Issue.record("the request got \(turn)"); return }
        await Self.expectAClaimWaitsForTheRequest(handOff)
    }

    @Test func aRequestWhoseBoundPassesWhileTheSessionOpensTheStoreIsAnsweredStillClaimed() async {
        let handOff = StoreHandOff<String>()
        let clock = ManualClock(now: Self.start)
        await handOff.claim("/data/a.sqlite")
        let request = Task { await handOff.request("/data/a.sqlite", waitingUntil: Self.bound, on: clock) }
        await handOff.waitUntilRequestWaits("/data/a.sqlite")
        await clock.advance(to: Self.bound)
        let turn = await request.value
        guard case .stillClaimed = turn else { Issue.record("the request got \(turn)"); return }
        handOff.release("/data/a.sqlite")
        #expect(handOff.borrow("/data/a.sqlite"), "the request that gave up does not have the file")
        handOff.giveBack("/data/a.sqlite")
        await handOff.claim("/data/a.sqlite")
    }

    /// A reload restarts a bot while a quarantine request, through the bot's earlier session, has its file open:
    /// the new session waits for the request instead of stopping as unable to open its store.
    @Test func aNewSessionOfABotWaitsForARequestThatHasItsStoreOpen() async throws {
        try await RuntimeHarness.run { harness in
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()
            let path = harness.environment().storeURL(forBot: "botty").path
            #expect(StoreHandOff<BotSession>.shared.borrow(path))
            let borrowed = try await BotStore.open(path: path, clock: harness.clock)

            let second = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false)
            try await withDeadline(.hangGuard, "the new session to wait for the request") {
                await StoreHandOff<BotSession>.shared.waitUntilClaimWaits(path)
            }
            await borrowed.close()
            StoreHandOff<BotSession>.shared.giveBack(path)
            try await second.waitUntil(.live)
            await second.stop()
        }
    }

    /// A drop sent to the control route while a new session of the bot claims its store (a request through the
    /// bot's earlier session has the file) waits for the new session to open it and is carried out through it; the
    /// new session starts.
    @Test func aQuarantineRouteWhileANewSessionClaimsTheStoreIsCarriedOutThroughIt() async throws {
        try await RuntimeHarness.run { harness in
            let first = try await harness.start(ScriptedBot(probe: BotProbe()))
            await first.stop()
            let directory = URL(fileURLWithPath: harness.directory.path)
            try await QuarantineSeed.seed(bot: "botty", in: directory, texts: ["boom"])
            let entry = try #require(try await QuarantineSeed.entries(of: "botty", in: directory).first)
            let path = harness.environment().storeURL(forBot: "botty").path
            #expect(StoreHandOff<BotSession>.shared.borrow(path))
            let borrowed = try await BotStore.open(path: path, clock: harness.clock)
            let second = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false)
            try await withDeadline(.hangGuard, "the new session to wait for the request") {
                await StoreHandOff<BotSession>.shared.waitUntilClaimWaits(path)
            }

            let server = try await HealthServer.start(
                supervisor: BotSupervisor(bots: [first.session], log: .discarding), port: 0)
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/quarantine/botty/\(entry.id)/drop"))
            let drop = Task { try await HTTPFetch.get(url, method: "POST") }
            try await withDeadline(.hangGuard, "the drop to wait for the new session") {
                await StoreHandOff<BotSession>.shared.waitUntilRequestWaits(path)
            }
            await borrowed.close()
            StoreHandOff<BotSession>.shared.giveBack(path)

            let response = try await drop.value
            #expect(response.status == 200, "\(response.body)")
            try await second.waitUntil(.live)
            #expect(try await second.session.quarantineEntries().isEmpty)
            await second.stop()
            await server.shutdown()
        }
    }
}
