@testable import ChatterBotsCLI
import BotRuntime
import ChatterBots
import ChatterSandbox
import Testing

/// The console's restart button on the embedded sandbox: a real restart, with a downtime long enough to watch.
@Suite("the console's faults on the embedded sandbox")
struct EmbeddedSandboxFaultsTests {
    @Test func theRestartButtonKeepsTheSandboxDownForThreeSecondsOfItsClockThenItListensAgain() async throws {
        let clock = ManualClock()
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0, clock: clock)
        let faults = EmbeddedSandboxFaults(sandbox: embedded.sandbox)
        let restart = Task { try await faults.inject(.restartServer, into: nil) }
        #expect(await embedded.sandbox.waitForListener(.down) == .down)

        await clock.advance(by: .milliseconds(2_999))
        #expect(embedded.sandbox.listenerPhase == .down)
        await clock.advance(by: .milliseconds(1))
        try await restart.value
        #expect(embedded.sandbox.listenerPhase == .listening)
        await embedded.shutdown()
    }

    @Test func pressingRestartWhileTheSandboxRestartsIsRefusedSayingSo() async throws {
        let clock = ManualClock()
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0, clock: clock)
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
}
