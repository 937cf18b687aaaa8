@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing

/// Reconnects go through the same `StartupGate` as first starts, after their backoff.
@Suite struct StartupGateReconnectTests {
    @Test func aReconnectWaitsForRoomAtTheGateAfterItsBackoff() async throws {
        try await RuntimeHarness.run { harness in
            let gate = StartupGate(limit: 1)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe())) { $0.startupGate = gate }
            #expect(gate.admittedCount == 0)
            let other = try #require(await gate.enter())  // another bot in its start-up

            try await harness.inject(.dropSocket)
            try await bot.waitUntil(.reconnecting)
            await harness.clock.advance(by: .milliseconds(1300))
            try await withDeadline(.seconds(60), "the reconnect to wait at the gate") { await gate.waitUntilWaiting(1) }
            #expect(await bot.status.state == .reconnecting)
            #expect(try await harness.connectedDevice() == nil)

            other.release()
            try await bot.waitUntilLive(harness)
            #expect(gate.admittedCount == 0)
            #expect(await bot.status.reconnects == 1)
            await bot.stop()
        }
    }

    @Test func aReconnectWithNothingElseStartingIsNotDelayed() async throws {
        try await RuntimeHarness.run { harness in
            let gate = StartupGate(limit: 1)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe())) { $0.startupGate = gate }
            try await harness.inject(.dropSocket)
            try await bot.waitUntil(.reconnecting)
            await harness.clock.advance(by: .milliseconds(1300))
            try await bot.waitUntilLive(harness)
            #expect(gate.admittedCount == 0 && gate.waitingCount == 0)
            await bot.stop()
        }
    }

    @Test func aBotShutDownWhileWaitingForItsFirstStartStopsWithoutTakingASlot() async throws {
        try await RuntimeHarness.run { harness in
            let gate = StartupGate(limit: 1)
            let other = try #require(await gate.enter())
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false) { $0.startupGate = gate }
            try await withDeadline(.seconds(60), "the start to wait at the gate") { await gate.waitUntilWaiting(1) }

            #expect(await bot.stop() == .shutdown)
            #expect(gate.waitingCount == 0)
            #expect(gate.admittedCount == 1)
            other.release()
            #expect(gate.admittedCount == 0)
        }
    }

    @Test func aFirstStartThatCannotOpenItsStoreGivesItsSlotBack() async throws {
        try await RuntimeHarness.run { harness in
            let gate = StartupGate(limit: 1)
            let notADirectory = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-directory-\(UUID())")
            try Data("a file".utf8).write(to: notADirectory)
            defer { try? FileManager.default.removeItem(at: notADirectory) }
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false) {
                $0.startupGate = gate
                $0.dataDirectory = notADirectory
            }
            try await bot.waitUntil(.stopped)
            #expect(gate.admittedCount == 0)
            #expect(gate.waitingCount == 0)
        }
    }
}
