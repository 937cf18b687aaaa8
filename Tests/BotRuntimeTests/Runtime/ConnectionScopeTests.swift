@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// One connection's tasks end with it: real connections to an in-process sandbox over loopback.
@Suite("ConnectionScope", .serialized)
struct ConnectionScopeTests {
    /// A sandbox with one user, and a connection of that user opened on it.
    static func withConnection(
        _ body: (Sandbox, SeededAccount, ChatterRealtimeConnection) async throws -> Void
    ) async throws {
        var configuration = SandboxConfiguration(seed: SandboxSeed(
            users: [
                SandboxUserSeed(username: "carol", password: "sandbox-password", displayName: "Carol"),
                SandboxUserSeed(username: "dave", password: "sandbox-password", displayName: "Dave"),
            ],
            friendships: [SandboxFriendship("carol", "dave")]))
        configuration.passwordHashIterations = 1_000
        // The sandbox runs on the real clock: no idle close or typing expiry falls due however long the machine
        // stalls. The heartbeat interval it announces stays the documented one, for the heartbeat's tests.
        configuration.realtime = RealtimeConfiguration(
            idleTimeout: .seconds(3 * 365 * 86_400), typingTimeout: .seconds(365 * 86_400))
        let sandbox = try await Sandbox.start(configuration)
        do {
            let carol = try #require(sandbox.seeded["carol"])
            let connection = try await ChatterRealtimeConnection.connect(
                configuration: sandbox.serverConfiguration, accessToken: carol.session.accessToken, options: .patient)
            try await body(sandbox, carol, connection)
            await connection.close()
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    /// The heartbeat on the real clock, its pong timeout a hang guard: no test here is about a missing pong.
    static func heartbeat() -> HeartbeatDriver {
        HeartbeatDriver(
            pongTimeout: .hangGuard, clock: SystemClock(), log: SessionLog(sink: .discarding, bot: "scope", clock: SystemClock()),
            timers: DeadlineScheduler(clock: SystemClock()), generation: 1)
    }

    /// A yes/no a task sets and the test reads.
    final class Flag: Sendable {
        private let state = Mutex(false)
        var isSet: Bool { state.withLock { $0 } }
        func set(_ value: Bool = true) { state.withLock { $0 = value } }
    }

    /// Records that a task added to the scope ran and was cancelled.
    final class ChildProbe: Sendable {
        let started = WakeSignal(clock: SystemClock())
        let cancelled = Flag()

        func run() async {
            started.wake()
            // Waits for nothing but its cancellation.
            await WakeSignal(clock: SystemClock()).wait()
            cancelled.set(Task.isCancelled)
        }
    }

    @Test func addedWorkIsCancelledWhenTheConnectionEnds() async throws {
        try await Self.withConnection { sandbox, carol, connection in
            let probe = ChildProbe()
            let scope = Task {
                await ConnectionScope.run(connection, heartbeat: Self.heartbeat(), onDead: {}) { tasks in
                    tasks.startReading { for await _ in connection.events {} }
                    tasks.add { await probe.run() }
                }
            }
            try await withDeadline(.hangGuard, "the added work to start") { await probe.started.wait() }
            try await sandbox.admin.inject(.dropSocket, into: carol.session.deviceId)
            try await value(of: scope, within: .hangGuard, "the scope to end with its connection")
            #expect(probe.cancelled.isSet)
        }
    }

    @Test func aConnectionItsOwnerDoesNotTakeIsAbortedAndNothingReadsIt() async throws {
        try await Self.withConnection { _, _, connection in
            let read = Flag()
            let scope = Task {
                await ConnectionScope.run(connection, heartbeat: Self.heartbeat(), onDead: {}) { tasks in
                    tasks.end()
                    tasks.startReading { read.set() }
                }
            }
            try await value(of: scope, within: .hangGuard, "the scope to end")
            #expect(await connection.closeReason == .networkLost)
            #expect(!read.isSet)
        }
    }

    @Test func cancellingTheOwnerEndsTheScopeAndItsHeartbeat() async throws {
        try await Self.withConnection { _, _, connection in
            let probe = ChildProbe()
            let scope = Task {
                await ConnectionScope.run(connection, heartbeat: Self.heartbeat(), onDead: {}) { tasks in
                    tasks.add { await probe.run() }
                }
            }
            try await withDeadline(.hangGuard, "the added work to start") { await probe.started.wait() }
            scope.cancel()
            try await value(of: scope, within: .hangGuard, "the cancelled scope to end")
            #expect(probe.cancelled.isSet)
            #expect(await connection.closeReason == .networkLost)
        }
    }

    @Test func framesSentThroughTheScopeGoOutInTheOrderAsked() async throws {
        try await Self.withConnection { sandbox, carol, connection in
            let dave = try #require(sandbox.seeded["dave"])
            let rest = ChatterRESTClient(
                configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: carol.session.tokens),
                requestTimeouts: .hangGuard)
            let conversation = try await rest.directConversation(with: dave.user.id).id
            let watcher = try await ChatterRealtimeConnection.connect(
                configuration: sandbox.serverConfiguration, accessToken: dave.session.accessToken, options: .patient)
            let seen = Task { () -> [Bool] in
                var changes: [Bool] = []
                for await event in watcher.events {
                    if case .frame(let frame) = event, case .typing(let indicator) = frame.event {
                        changes.append(indicator.isTyping)
                        if changes.count == 4 { break }
                    }
                }
                return changes
            }
            let scope = Task {
                await ConnectionScope.run(connection, heartbeat: Self.heartbeat(), onDead: {}) { tasks in
                    tasks.startReading { for await _ in connection.events {} }
                    tasks.send(.typingStart(conversationId: conversation))
                    tasks.send(.typingStop(conversationId: conversation))
                    tasks.send(.typingStart(conversationId: conversation))
                    tasks.send(.typingStop(conversationId: conversation))
                }
            }
            #expect(try await value(of: seen, within: .hangGuard, "dave to see the typing changes") == [true, false, true, false])
            await watcher.close()
            connection.abort()
            try await value(of: scope, within: .hangGuard, "the scope to end")
        }
    }
}
