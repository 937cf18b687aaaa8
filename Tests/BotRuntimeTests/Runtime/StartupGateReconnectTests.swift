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
            try await withDeadline(.hangGuard, "the reconnect to wait at the gate") { await gate.waitUntilWaiting(1) }
            #expect(await bot.status.state == .reconnecting)
            #expect(try await harness.connectedDevice() == nil)

            other.release()
            try await bot.waitUntilLive(harness)
            #expect(gate.admittedCount == 0)
            #expect(await bot.status.reconnects == 1)
            await bot.stop()
        }
    }

    /// A key rotation closes every bot with 4001 at once, a mass logout with 4003: each one's refresh (or fresh
    /// sign-in) and reconnect waits for its turn at the gate instead of going out in one wave.
    @Test(arguments: [SandboxFault.expireToken, .revokeDevice])
    func botsClosedAllAtOnceComeBackThroughTheGate(_ fault: SandboxFault) async throws {
        try await RuntimeHarness.run { harness in
            let gate = StartupGate(limit: 2)
            let accounts = [harness.botty, harness.otto, harness.ana, harness.ben, harness.cleo, harness.dan]
            var bots: [RunningBot] = []
            for account in accounts {
                bots.append(try await harness.start(ScriptedBot(probe: BotProbe()), as: account) { $0.startupGate = gate })
            }
            var devices: [Device.ID] = []
            for account in accounts { devices.append(try #require(try await harness.connectedDevice(of: account))) }
            // Two other bots are starting: the gate is full.
            let starting = [try #require(await gate.enter()), try #require(await gate.enter())]
            let before = await harness.sandbox.admin.socketEvents().last?.sequence

            for device in devices { try await harness.sandbox.admin.inject(fault, into: device) }
            try await withDeadline(.hangGuard, "every closed bot to wait at the gate") {
                await gate.waitUntilWaiting(accounts.count)
            }
            #expect(await harness.sandbox.admin.socketEvents(after: before).allSatisfy { $0.kind == .closed })
            #expect(await harness.sandbox.admin.connectedDevices().isEmpty)

            starting[0].release()  // one slot: the bots come back one after another through it
            for bot in bots { try await bot.waitUntilLive(harness) }
            #expect(gate.waitingCount == 0)
            #expect(gate.admittedCount == 1)
            for bot in bots { #expect(await bot.status.reconnects == 1) }
            starting[1].release()
            for bot in bots { await bot.stop() }
        }
    }

    /// A process killed while the bot waits its turn must not sign in on the revoked device at its next start.
    @Test func aRevokedDeviceForgetsItsSessionBeforeWaitingForItsTurnAtTheGate() async throws {
        try await RuntimeHarness.run { harness in
            let gate = StartupGate(limit: 1)
            let bot = try await harness.start(ScriptedBot(probe: BotProbe())) { $0.startupGate = gate }
            let revoked = try #require(try await harness.connectedDevice())
            let other = try #require(await gate.enter())  // another bot in its start-up

            try await harness.sandbox.admin.inject(.revokeDevice, into: revoked)
            try await withDeadline(.hangGuard, "the fresh sign-in to wait at the gate") { await gate.waitUntilWaiting(1) }
            try await harness.waitUntil("the revoked session forgotten") {
                harness.logs.contains(.warning, "the device was revoked; its session data is cleared")
            }
            #expect(gate.waitingCount == 1)

            other.release()
            try await bot.waitUntilLive(harness)
            #expect(try await harness.connectedDevice() != revoked)
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
            try await withDeadline(.hangGuard, "the start to wait at the gate") { await gate.waitUntilWaiting(1) }

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
