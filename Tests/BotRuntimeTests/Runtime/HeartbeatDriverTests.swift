@testable import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import TestSupport
import Testing

/// A connection's heartbeat against the sandbox: pings go out from the deadline itself and each pong, heard on the
/// reader, moves the heartbeat on to the next ping.
@Suite("HeartbeatDriver", .serialized)
struct HeartbeatDriverTests {
    typealias Flag = ConnectionScopeTests.Flag

    /// A heartbeat of generation 1 with a 10 s pong timeout, its deadlines on a virtual clock.
    static func heartbeat() -> (ManualClock, DeadlineScheduler<SessionDeadline>, HeartbeatDriver) {
        let clock = ManualClock()
        let timers = DeadlineScheduler<SessionDeadline>(clock: clock, executor: nil)
        let heartbeat = HeartbeatDriver(
            pongTimeout: .seconds(10), clock: clock, log: SessionLog(sink: .discarding, bot: "heartbeat", clock: clock),
            timers: timers, generation: 1)
        return (clock, timers, heartbeat)
    }

    @Test func aPongMovesTheHeartbeatFromThePongDeadlineToTheNextPing() async throws {
        try await ConnectionScopeTests.withConnection { _, _, connection in
            let (clock, timers, heartbeat) = Self.heartbeat()
            defer { timers.stop() }
            let dead = Flag()
            let key = SessionDeadline.heartbeat(generation: 1)
            let scope = Task {
                await ConnectionScope.run(connection, heartbeat: heartbeat, onDead: { dead.set() }) { tasks in
                    tasks.startReading { for await _ in connection.events {} }
                }
            }
            let start = clock.now
            let interval = connection.heartbeatInterval
            try await clock.waitForSleepers(1)
            #expect(timers.deadline(of: key) == start.adding(interval))
            #expect(heartbeat.pingsWritten == 0 && heartbeat.pongsReceived == 0)
            await clock.advance(by: interval)  // the ping goes out
            let nextPing = start.adding(interval).adding(interval)
            #expect(heartbeat.awaitsPong || timers.deadline(of: key) == nextPing, "a ping went out")
            await heartbeat.waitUntilAnswered()
            #expect(!heartbeat.awaitsPong)
            #expect(heartbeat.pingsWritten == 1 && heartbeat.pongsReceived == 1, "the pong is counted with its ping")
            #expect(timers.deadline(of: key) == nextPing, "the pong came and the pong deadline went")
            await clock.advance(by: .seconds(10))  // past the pong deadline: the connection lives on
            try await clock.waitForSleepers(1)  // the scheduler woke there and waits for the next ping
            #expect(!dead.isSet)
            #expect(timers.deadline(of: key) == nextPing)
            await connection.close()
            await scope.value
        }
    }

    @Test func aRoundTripSendsAPingBesidesTheScheduleAndReturnsWithItsPong() async throws {
        try await ConnectionScopeTests.withConnection { _, _, connection in
            let (clock, timers, heartbeat) = Self.heartbeat()
            defer { timers.stop() }
            let scope = Task {
                await ConnectionScope.run(connection, heartbeat: heartbeat, onDead: {}) { tasks in
                    tasks.startReading { for await _ in connection.events {} }
                }
            }
            try await clock.waitForSleepers(1)
            let start = clock.now
            #expect(await heartbeat.roundTrip())
            #expect(heartbeat.pingsWritten == 1 && heartbeat.pongsReceived == 1, "its pong is counted with its ping")
            #expect(!heartbeat.awaitsPong)
            #expect(
                timers.deadline(of: .heartbeat(generation: 1)) == start.adding(connection.heartbeatInterval),
                "the next scheduled ping is an interval after this one")
            await connection.close()
            await scope.value
        }
    }

    @Test func aRoundTripWithoutAConnectionReturnsAtOnce() async throws {
        let (_, timers, heartbeat) = Self.heartbeat()
        defer { timers.stop() }
        #expect(await heartbeat.roundTrip() == false)
        heartbeat.stop()
        #expect(await heartbeat.roundTrip() == false)
        #expect(heartbeat.pingsWritten == 0)
    }

    @Test func waitingForThePongEndsWhenTheHeartbeatStops() async throws {
        let (_, timers, heartbeat) = Self.heartbeat()
        defer { timers.stop() }
        await heartbeat.waitUntilAnswered()  // never started: nothing waits
        heartbeat.stop()
        await heartbeat.waitUntilAnswered()
        #expect(!heartbeat.awaitsPong)
    }
}
