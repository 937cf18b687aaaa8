@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Glibc
import SQLite
import TestSupport
import Testing

/// Moving a bot between data directories with the built `example-bots` (`export`, `import`, `run` as processes): the
/// store's lock keeps a second process out, also while the store is dormant; the moved bot is the same device and sends
/// what it had not sent yet, once; the place it left refuses to start it.
@Suite("example-bots export and import as processes", .serialized)
struct StoreMoveProcessTests {
    typealias Fixture = ExampleBotsProcessTests.Fixture

    /// Runs `example-bots` with `arguments` in `directory` until it exits.
    func command(_ arguments: [String], in directory: URL, label: String) async throws -> (BotProcess.Exit?, BotProcess) {
        let process = try BotProcess(
            arguments, in: directory, environment: ["ECHO_BOT_PASSWORD": ExampleBotsProcessTests.botPassword], label: label)
        return (await process.waitForExit(timeout: .hangGuard), process)
    }

    @Test func exportIsRefusedWhileAnotherProcessHoldsTheStoreDormant() async throws {
        let directory = try TemporaryDirectory("StoreMoveProcessTests")
        let data = directory.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let store = try await BotStore.open(
            path: data.appendingPathComponent("echo.sqlite").path, dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        try await store.setValue("here", forKey: "owner", in: .global)
        #expect(await store.releaseConnectionIfIdle())

        let (refused, first) = try await command(["export", "echo", "--to", "echo.store", "--data", "data"], in: directory.url, label: "refused")
        #expect(refused == .code(1), "\(first.errors)")
        #expect(first.errors.contains("Another process runs bot echo"), "\(first.errors)")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("echo.store").path))
        #expect(try await store.value(String.self, forKey: "owner", in: .global) == "here")
        await store.close()

        let (exported, second) = try await command(["export", "echo", "--to", "echo.store", "--data", "data"], in: directory.url, label: "exported")
        #expect(exported == .code(0), "\(second.errors)")
        #expect(second.output.contains("Exported bot echo"), "\(second.output)")
    }

    @Test func exportIsRefusedWhileTheBotRuns() async throws {
        let fixture = try await Fixture.start(typingSeconds: 0)
        let running = try fixture.launch(label: "running")
        #expect(await fixture.waitUntilLive(running), "\(running.errors)")
        let (refused, export) = try await command(["export", "echo", "--to", "echo.store"], in: fixture.directory.url, label: "export")
        #expect(refused == .code(1), "\(export.errors)")
        #expect(export.errors.contains("Another process runs bot echo"), "\(export.errors)")
        running.send(SIGTERM)
        #expect(await running.waitForExit() == .code(0), "\(running.errors)")
        await fixture.stop()
    }

    @Test func aMovedBotIsTheSameDeviceSendsItsUnsentReplyOnceAndNoLongerStartsWhereItWas() async throws {
        let fixture = try await Fixture.start(typingSeconds: 0)
        let (first, device) = try await fixture.launchWithAcksHeldBack(label: "before-move")
        _ = try await fixture.say("hello")
        // The server stored the reply; its ack is held back, so the entry is still in the bot's outbox.
        try await fixture.waitForReplies(["echo: hello"])
        first.send(SIGKILL)
        #expect(await first.waitForExit() == .signal(SIGKILL))
        #expect(try await fixture.pendingOutbox().count == 1)

        let (exported, export) = try await command(["export", "echo", "--to", "echo.store"], in: fixture.directory.url, label: "export")
        #expect(exported == .code(0), "\(export.errors)")
        #expect(export.output.contains("device \(device.rawValue), 1 outbox entry pending"), "\(export.output)")

        let left = try fixture.launch(label: "where-it-was")
        #expect(await eventually(timeout: .hangGuard) { left.errors.contains("was moved") }, "\(left.errors)")
        left.send(SIGTERM)
        _ = await left.waitForExit()
        #expect(await fixture.sandbox.admin.connectedDevices().isEmpty)

        let movedConfiguration = try String(contentsOf: fixture.directory.url.appendingPathComponent("bots.json"), encoding: .utf8)
            .replacingOccurrences(of: "\"dataDirectory\": \"data\"", with: "\"dataDirectory\": \"moved\"")
        _ = try fixture.directory.write(movedConfiguration, to: "moved.json")
        let (imported, importing) = try await command(
            ["import", "echo.store", "--config", "moved.json"], in: fixture.directory.url, label: "import")
        #expect(imported == .code(0), "\(importing.errors)")
        #expect(importing.output.contains("Imported bot echo (user \(fixture.bot.user.id.rawValue), device \(device.rawValue)"), "\(importing.output)")

        await fixture.sandbox.admin.clearFaults(of: device)
        let moved = try BotProcess(
            ["run", "--config", "moved.json"], in: fixture.directory.url,
            environment: ["ECHO_BOT_PASSWORD": ExampleBotsProcessTests.botPassword], label: "moved")
        #expect(await fixture.waitUntilLive(moved), "\(moved.errors)")
        #expect(await fixture.sandbox.admin.connectedDevices() == [device])
        let movedStore = fixture.directory.url.appendingPathComponent("moved/echo.sqlite").path
        moved.send(SIGTERM)
        #expect(await moved.waitForExit() == .code(0), "\(moved.errors)")
        let store = try await BotStore.open(path: movedStore)
        #expect(try await store.pendingOutbox().isEmpty)
        await store.close()
        #expect(try await fixture.replies() == ["echo: hello"])
        await fixture.stop()
    }
}
