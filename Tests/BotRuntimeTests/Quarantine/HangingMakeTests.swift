@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import Foundation
import Synchronization
import TestSupport
import Testing

/// A kind's `make` that never returns, its bot started again and again in one process (as reloads do): it holds one
/// thread and one in-flight slot, not one more at each start, and the other bots go on.
@Suite struct HangingMakeTests {
    /// A kind whose `make` blocks its thread (it calls no `await`) until `finish()`, and counts its calls.
    final class HangingKind: Sendable {
        let started = Gate()
        private let release = DispatchSemaphore(value: 0)
        private let count = Atomic<Int>(0)

        var calls: Int { count.load(ordering: .relaxed) }

        var kind: BotKind {
            BotKind("stuck") { [self] _ in
                count.add(1, ordering: .relaxed)
                started.open()
                release.wait()
                return ScriptedBot(probe: BotProbe())
            }
        }

        func finish() {
            release.signal()
        }
    }

    @Test func restartsOfAKindWhoseMakeNeverReturnsHoldOneThreadAndTheOtherBotsKeepAnswering() async throws {
        try await RuntimeHarness.run { harness in
            let table = try InFlightTable(directory: URL(fileURLWithPath: harness.directory.path, isDirectory: true), capacity: 16)
            let (threads, hanging) = (MakeThreads(width: 2, spares: 1), HangingKind())
            defer { hanging.finish() }
            let process: (inout BotRuntimeEnvironment) -> Void = {
                $0.handlerTimeout = .seconds(1)
                $0.inFlightTable = table
                $0.makeThreads = threads
            }
            let otto = try await harness.start(
                madeBy: BotKind("echo") { _ in ScriptedBot(probe: BotProbe()) }, as: harness.otto, process)

            let first = try await harness.start(madeBy: hanging.kind, waitUntilLive: false, process)
            await hanging.started.wait()
            await harness.clock.advance(by: .seconds(1))
            let timedOut = try await value(of: first.task, within: .hangGuard, "the first start to stop")
            #expect(timedOut.description.contains(#"kind "stuck" did not make the bot within 1.0 seconds"#), "\(timedOut)")

            for _ in 1...3 {
                let again = try await harness.start(madeBy: hanging.kind, waitUntilLive: false, process)
                let reason = try await value(of: again.task, within: .hangGuard, "a later start to stop")
                #expect(reason == .configurationError(MakeThreadRules.Refusal.kindStillRunning(kind: "stuck", bot: "botty").description))
            }
            #expect(hanging.calls == 1, "the kind is not called again while its make runs")
            #expect(threads.threads == 1)
            #expect(table.running.map(\.key) == ["make"])

            let conversation = try await harness.direct(harness.ana, harness.otto)
            let hello = try await harness.say("hello", as: harness.ana, in: conversation)
            try await harness.waitUntilHandled(upTo: hello.seq, in: conversation, by: otto, as: harness.otto)
            #expect(try await harness.texts(in: conversation, from: harness.otto) == ["echo: hello"])
            await otto.stop()
        }
    }
}
