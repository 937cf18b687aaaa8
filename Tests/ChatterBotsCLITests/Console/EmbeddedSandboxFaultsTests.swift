@testable import ChatterBotsCLI
import BotRuntime
import ChatterBots
import ChatterSandbox
import TestSupport
import Testing

/// The console's restart button on the embedded sandbox: a real restart, with a downtime long enough to watch.
@Suite("the console's faults on the embedded sandbox")
struct EmbeddedSandboxFaultsTests {
    @Test func theRestartButtonKeepsTheSandboxDownForThreeSecondsOfItsClockThenItListensAgain() async throws {
        let clock = ManualClock()
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: try FreePort.take(), clock: clock)
        let faults = EmbeddedSandboxFaults(sandbox: embedded.sandbox)
        let pressed = clock.now
        let restart = Task { try await faults.inject(.restartServer, into: nil) }
        #expect(await embedded.sandbox.waitForListener(.down) == .down)
        // The downtime is a sleep on the sandbox's clock that ends three seconds after the press.
        try await clock.waitForSleepers(1)
        #expect(clock.nextDeadline == pressed.addingTimeInterval(3))

        await clock.advance(by: .seconds(3))
        try await restart.value
        #expect(embedded.sandbox.listenerPhase == .listening)
        await embedded.shutdown()
    }

    @Test func pressingRestartWhileTheSandboxRestartsIsRefusedSayingSo() async throws {
        let clock = ManualClock()
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: try FreePort.take(), clock: clock)
        let faults = EmbeddedSandboxFaults(sandbox: embedded.sandbox)
        let restart = Task { try await faults.inject(.restartServer, into: nil) }
        _ = await embedded.sandbox.waitForListener(.down)

        await #expect(throws: ConsoleInputError("the sandbox is restarting already: wait until it listens again")) {
            try await faults.inject(.restartServer, into: nil)
        }

        await clock.advance(by: .seconds(3))
        try await restart.value
        await embedded.shutdown()
    }

    @Test func pressingRestartOnASandboxThatWasShutDownSaysItIsUnavailable() async throws {
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0)
        await embedded.shutdown()
        await #expect(throws: ConsoleInputError("the sandbox was shut down: start a new one", isUnavailable: true)) {
            try await EmbeddedSandboxFaults(sandbox: embedded.sandbox).inject(.restartServer, into: nil)
        }
    }

    @Test func theConsolesFileDeviceOfATestUserStaysOneDeviceAcrossRuns() async throws {
        let directory = try TemporaryDirectory("ConsoleTestUserClients")
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0)
        let alice = try #require(embedded.testAccounts.first)
        let service = embedded.sandbox.service
        func devices() async throws -> Int {
            let me = try await service.searchUsers(SandboxCaller(userId: "any", deviceId: "any"), username: alice.username)
            let id = try #require(me.users.first?.id)
            return try await service.devices(ofUsers: [id]).count
        }
        let before = try await devices()
        for _ in 0..<2 {
            let clients = ConsoleTestUserClients(
                server: embedded.sandbox.serverConfiguration, deviceDirectory: directory.url, restRequestTimeouts: .hangGuard)
            _ = try await clients.client(for: alice).me()
        }
        #expect(try await devices() == before + 1)
        await embedded.shutdown()
    }
}
