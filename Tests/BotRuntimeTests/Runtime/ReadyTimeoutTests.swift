import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import TestSupport
import Testing
import WebSocket

/// The session's lifecycle owns the wait for `session.ready`: a server that opens the socket and then says nothing
/// is left after the ready timeout on the session's clock, and tried again after the backoff.
@Suite struct ReadyTimeoutTests {
    @Test func aSocketThatNeverSendsSessionReadyIsDroppedAfterTheReadyTimeoutAndTriedAgain() async throws {
        try await RuntimeHarness.run { harness in
            let sockets = Mutex(0)
            let changes = harness.changes
            let silent = try await HTTPServer.start { _ in
                .webSocket { connection in
                    sockets.withLock { $0 += 1 }
                    changes.signal()
                    for await _ in connection.messages {}
                }
            }
            let url = try #require(URL(string: "ws://127.0.0.1:\(silent.port)/v1/ws"))
            let bot = try await harness.start(ScriptedBot(probe: BotProbe()), waitUntilLive: false) { environment in
                environment.server.webSocketURL = url
            }
            try await harness.waitUntil("the bot to wait for session.ready") {
                harness.logs.contains(.debug, "waiting 10.0 seconds for session.ready")
            }

            await harness.clock.advance(by: .seconds(10))
            try await harness.waitUntil("the bot to drop the socket for the ready timeout") {
                harness.logs.contains(.notice, "connection dropped: readyTimedOut")
            }
            await harness.clock.advance(to: try #require(await bot.status.reconnectAt))
            try await harness.waitUntil("the bot to try again") { sockets.withLock { $0 } == 2 }
            #expect(await bot.status.state == .connecting)
            await bot.stop()
            await silent.shutdown()
        }
    }
}
