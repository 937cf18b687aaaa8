@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import BotRuntimeTestSupport

/// The supervisor running real `BotSession`s against an in-process sandbox.
@Suite("supervisor with real sessions")
struct SupervisedSessionTests {
    @Test func aBotWithAWrongPasswordStopsWithAClearMessageWhileTheOtherAnswersMessages() async throws {
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            service: SandboxServiceConfiguration(passwordHashIterations: 1_000),
            seed: SandboxSeed(
                users: [
                    SandboxUserSeed(username: "alice", password: "alice-password"),
                    SandboxUserSeed(username: "good_bot", password: "good-password"),
                    SandboxUserSeed(username: "bad_bot", password: "real-password"),
                ],
                friendships: [SandboxFriendship("alice", "good_bot"), SandboxFriendship("alice", "bad_bot")])))
        let directory = try TemporaryDirectory("SupervisedSessionTests")
        // Signalled by the sandbox's writes, the sessions' state changes and every log line.
        let changes = ChangeSignal()
        let observation = sandbox.service.store.changes.observe { changes.signal() }
        defer { sandbox.service.store.changes.stopObserving(observation) }
        let lines = CapturedLines(changes: changes)
        let log = LogSink(minimumLevel: .info, output: lines)
        let environment = BotRuntimeEnvironment(
            server: sandbox.serverConfiguration, dataDirectory: directory.url, logSink: log)
        func session(_ name: String, _ username: String, _ password: String) -> BotSession {
            log.registerSecret(password)
            let session = BotSession(
                configuration: BotConfiguration(
                    name: name, kind: "greeting", credentials: BotCredentials(username: username, password: password),
                    friendRequests: .nobody, sendPacing: nil),
                bot: GreetingBot(options: .init(greeting: "hello")), environment: environment)
            signalStateChanges(of: session, to: changes)
            return session
        }
        let supervisor = BotSupervisor(
            bots: [session("good", "good_bot", "good-password"), session("bad", "bad_bot", "wrong-password")], log: log)
        let run = Task { await supervisor.run() }

        try await changes.wait(until: { await supervisor.stopReasons["bad"] != nil }, "bad to stop")
        #expect(await supervisor.stopReasons["bad"] == .credentialsRejected(SessionStopReason.invalidCredentials.message))
        #expect(lines.lines(containing: "level=error", "bot=bad", "bot stopped: configuration error: check the bot's username and password").count == 1, "\(lines.text)")

        let alice = try #require(sandbox.seeded["alice"])
        let goodBot = try #require(sandbox.seeded["good_bot"])
        let client = ChatterRESTClient(
            configuration: sandbox.serverConfiguration,
            tokenStore: ChatterTokenStore(tokens: SessionTokens(
                accessToken: alice.session.accessToken, refreshToken: alice.session.refreshToken)),
                requestTimeouts: .hangGuard)
        let conversation = try await client.directConversation(with: goodBot.user.id)
        try await changes.wait(until: { await supervisor.statuses().first?.connected == true }, "good to connect")
        _ = try await client.postMessage(.text("anyone there?"), clientMessageId: .random(), in: conversation.id)
        try await changes.wait(until: {
            let messages = try await client.messages(in: conversation.id, afterSeq: 0).messages
            return messages.contains { $0.senderId == goodBot.user.id && $0.body == "hello, anyone there?" }
        }, "good to answer")

        let health = await supervisor.health()
        #expect(!health.isHealthy)
        #expect(health.bots.map(\.connected) == [true, false])
        #expect(health.bots[1].lastError == SessionStopReason.invalidCredentials.message)
        #expect(!lines.text.contains("wrong-password") && !lines.text.contains("good-password"))

        await supervisor.shutdown(deadline: .seconds(5))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.stops.map(\.reason) == [.shutdown, .credentialsRejected(SessionStopReason.invalidCredentials.message)])
        await sandbox.shutdown()
    }

    @Test func botsAdmittedOneAtATimeAllGoLive() async throws {
        let names = ["wave_a", "wave_b", "wave_c", "wave_d"]
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            service: SandboxServiceConfiguration(passwordHashIterations: 1_000),
            seed: SandboxSeed(users: names.map { SandboxUserSeed(username: $0, password: "\($0)-password") })))
        let directory = try TemporaryDirectory("SupervisedSessionTests")
        var environment = BotRuntimeEnvironment(server: sandbox.serverConfiguration, dataDirectory: directory.url)
        let gate = StartupGate(limit: 1)
        environment.startupGate = gate
        let changes = ChangeSignal()
        let sessions = names.map { name in
            let session = BotSession(
                configuration: BotConfiguration(
                    name: name, kind: "greeting", credentials: BotCredentials(username: name, password: "\(name)-password"),
                    friendRequests: .nobody, sendPacing: nil),
                bot: GreetingBot(options: .init(greeting: "hello")), environment: environment)
            signalStateChanges(of: session, to: changes)
            return session
        }
        let supervisor = BotSupervisor(bots: sessions, log: .discarding)
        let run = Task { await supervisor.run() }

        try await changes.wait(until: { await supervisor.statuses().allSatisfy { $0.state == .live } }, "every bot live")
        #expect(gate.admittedCount == 0)
        #expect(gate.waitingCount == 0)

        await supervisor.shutdown(deadline: .seconds(5))
        let outcome = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
        #expect(outcome.failures.isEmpty)
        await sandbox.shutdown()
    }
}
