import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import Testing

/// Where a session's handlers run: on an event loop with its socket by default, on Swift's global executor when
/// the environment says so.
@Suite struct SessionExecutionTests {
    /// The name of the thread each handled message ran on.
    final class ThreadNames: Sendable {
        private let names = Mutex<[String]>([])
        var all: [String] { names.withLock { $0 } }
        func record() { names.withLock { $0.append(Thread.current.name ?? "") } }
    }

    /// Runs a bot that answers one message, with `execution` (nil: the environment's default).
    func handlerThreads(_ execution: SessionExecution?) async throws -> [String] {
        let threads = ThreadNames()
        try await RuntimeHarness.run { harness in
            var script = ScriptedBot(probe: BotProbe())
            script.onMessageScript = { message, context in
                threads.record()
                try await context.reply(to: message, "echo: \(message.text)")
            }
            let bot = try await harness.start(script) { environment in
                if let execution { environment.sessionExecution = execution }
            }
            let conversation = try await harness.direct(harness.ana)
            _ = try await harness.say("where are you?", as: harness.ana, in: conversation)
            try await harness.waitUntil("the reply is stored") {
                try await harness.texts(in: conversation, from: harness.botty) == ["echo: where are you?"]
            }
            #expect(await bot.stop() == .shutdown)
        }
        return threads.all
    }

    @Test func byDefaultAHandlerRunsOnAnEventLoopThread() async throws {
        let names = try await handlerThreads(nil)
        #expect(names.count == 1)
        #expect(names.allSatisfy { $0.hasPrefix("chatter-loop-") })
    }

    @Test func onTheGlobalExecutorAHandlerRunsOffTheEventLoops() async throws {
        let names = try await handlerThreads(.globalConcurrentExecutor)
        #expect(names.count == 1)
        #expect(!names.contains { $0.hasPrefix("chatter-loop-") })
    }
}
