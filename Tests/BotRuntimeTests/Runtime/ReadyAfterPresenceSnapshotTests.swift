import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// `onReady` runs once the sync is done and the presence snapshot is in, waiting at most 5 s for the snapshot.
@Suite struct ReadyAfterPresenceSnapshotTests {
    /// Connects again with the snapshot held back by `fault`; returns once the bot is live and idle again, with
    /// the time of the new connection's `session.ready` (its "connected" log line).
    @discardableResult
    private func reconnect(
        _ bot: RunningBot, holdingTheSnapshot fault: SandboxFault, in harness: RuntimeHarness
    ) async throws -> Date {
        try await harness.inject(fault)
        try await harness.inject(.dropSocket)
        try await bot.waitUntil(.reconnecting)
        await harness.clock.advance(by: .milliseconds(1300))
        try await bot.waitUntil(.live)
        try await bot.waitUntilIdle()
        return try #require(harness.logs.all.last { $0.message == "connected" }?.time)
    }

    @Test func onReadyWaitsForALateSnapshotAndRunsAfterIt() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ReadyOrderBot(events: events))
            try await harness.waitUntil("the first onReady") { events.entries == ["snapshot", "ready"] }
            try await reconnect(bot, holdingTheSnapshot: .delayPresenceSnapshot(.seconds(3)), in: harness)
            #expect(events.entries == ["snapshot", "ready"])

            await harness.clock.advance(by: .seconds(3))
            try await harness.waitUntil("onReady after the late snapshot") { events.entries.count == 4 }
            try await bot.waitUntilIdle()
            #expect(events.entries == ["snapshot", "ready", "snapshot", "ready"])
            await bot.stop()
        }
    }

    @Test func withoutASnapshotOnReadyRunsFiveSecondsAfterSessionReady() async throws {
        try await RuntimeHarness.run { harness in
            let events = EventRecorder(changes: harness.changes)
            let bot = try await harness.startAny(ReadyOrderBot(events: events))
            try await harness.waitUntil("the first onReady") { events.entries == ["snapshot", "ready"] }
            let ready = try await reconnect(bot, holdingTheSnapshot: .delayPresenceSnapshot(nil), in: harness)

            await harness.clock.advance(to: ready.addingTimeInterval(4.9))
            try await bot.waitUntilIdle()
            #expect(events.entries == ["snapshot", "ready"])

            await harness.clock.advance(to: ready.addingTimeInterval(5))
            try await harness.waitUntil("onReady without the snapshot") { events.entries.count == 3 }
            try await bot.waitUntilIdle()
            #expect(events.entries == ["snapshot", "ready", "ready"])
            #expect(harness.logs.contains(.notice, "no presence snapshot"))
            await bot.stop()
        }
    }
}

/// Records `onPresenceSnapshot` and `onReady`, in the order they run.
private struct ReadyOrderBot: Bot {
    let events: EventRecorder

    func onPresenceSnapshot(_ presences: [Presence], context: any BotContext) async throws {
        events.record("snapshot")
    }

    func onReady(_ session: SessionReady, context: any BotContext) async throws {
        events.record("ready")
    }
}
