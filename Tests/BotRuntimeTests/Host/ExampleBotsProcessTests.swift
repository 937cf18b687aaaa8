@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The built `example-bots` executable against a sandbox in this test process (so the sandbox survives the bot
/// being killed): graceful and immediate shutdown on signals, and exactly-once replies across a SIGKILL. What the
/// sandbox stores and what alice hears are waited for on their changes; the process's log is a file, looked at
/// again until it says what is awaited.
@Suite("example-bots as a process", .serialized)
struct ExampleBotsProcessTests {
    static let botPassword = "echo-bot-password"

    /// A sandbox with alice and echo_bot, friends, and a directory for the bot's configuration and data.
    struct Fixture {
        let sandbox: Sandbox
        let directory: TemporaryDirectory
        let alice: ChatterRESTClient
        let bot: SeededAccount
        let conversation: Conversation
        /// Signalled by each write and socket of the sandbox, and by alice's typing watch.
        let changes: ChangeSignal
        let observation: SandboxChanges.Observation

        static func start(typingSeconds: Double) async throws -> Fixture {
            var configuration = SandboxConfiguration(
                service: SandboxServiceConfiguration(passwordHashIterations: 1_000),
                seed: SandboxSeed(
                    users: [
                        SandboxUserSeed(username: "alice", password: "alice-password"),
                        SandboxUserSeed(username: "echo_bot", password: botPassword),
                    ],
                    friendships: [SandboxFriendship("alice", "echo_bot")]))
            // On the real clock: alice's watching socket, which never pings, is not closed as idle however long the
            // machine stalls. The heartbeat interval it announces stays the documented one.
            configuration.realtime.idleTimeout = .seconds(3 * 365 * 86_400)
            let sandbox = try await Sandbox.start(configuration)
            let aliceAccount = try #require(sandbox.seeded["alice"])
            let bot = try #require(sandbox.seeded["echo_bot"])
            let alice = ChatterRESTClient(
                configuration: sandbox.serverConfiguration,
                tokenStore: ChatterTokenStore(tokens: SessionTokens(
                    accessToken: aliceAccount.session.accessToken, refreshToken: aliceAccount.session.refreshToken)),
                    requestTimeouts: .hangGuard)
            let conversation = try await alice.directConversation(with: bot.user.id)
            let directory = try TemporaryDirectory("ExampleBotsProcessTests")
            let changes = ChangeSignal()
            let observation = sandbox.service.store.changes.observe { changes.signal() }
            let fixture = Fixture(
                sandbox: sandbox, directory: directory, alice: alice, bot: bot, conversation: conversation, changes: changes,
                observation: observation)
            try fixture.writeConfiguration(typingSeconds: typingSeconds)
            return fixture
        }

        /// Writes bots.json: the echo bot, typing for `typingSeconds` before each reply. A bot started later reads it.
        func writeConfiguration(typingSeconds: Double) throws {
            try directory.write("""
                {
                  "server": {"apiURL": "\(sandbox.apiURL.absoluteString)", "webSocketURL": "\(sandbox.webSocketURL.absoluteString)",
                             "clientKey": "\(sandbox.clientKey)"},
                  "dataDirectory": "data",
                  "bots": [{"name": "echo", "kind": "echo",
                            "credentials": {"username": "echo_bot", "password": {"env": "ECHO_BOT_PASSWORD"}},
                            "friendRequests": "everyone", "options": {"typingSeconds": \(typingSeconds)}}]
                }
                """, to: "bots.json")
        }

        /// Alice's realtime connection, watching for the bot to start typing: its handler is running then.
        func watchTyping() async throws -> TypingWatch {
            let account = try #require(sandbox.seeded["alice"])
            let connection = try await ChatterRealtimeConnection.connect(
                configuration: sandbox.serverConfiguration, accessToken: account.session.accessToken, options: .patient)
            return TypingWatch(connection: connection, typist: bot.user.id, changes: changes)
        }

        func launch(_ extra: [String] = [], label: String) throws -> BotProcess {
            try BotProcess(
                ["run", "--config", "bots.json"] + extra, in: directory.url,
                environment: ["ECHO_BOT_PASSWORD": botPassword], label: label)
        }

        /// Waits until the bot process has a live session (its socket is open and it logged `live`).
        func waitUntilLive(_ process: BotProcess) async -> Bool {
            await eventually(timeout: .hangGuard) {
                let connected = await sandbox.admin.connectedDevices()
                return process.errors.contains("msg=live") && !connected.isEmpty
            }
        }

        /// Launches the bot, waits until it is live, and holds back the service's acks to its device for ten minutes,
        /// so that what it sends stays in its outbox; returns the process and the device, to clear the fault later.
        func launchWithAcksHeldBack(label: String) async throws -> (BotProcess, Device.ID) {
            let process = try launch(label: label)
            #expect(await waitUntilLive(process), "\(process.errors)")
            let device = try #require(await sandbox.admin.connectedDevices().first)
            try await sandbox.admin.inject(.delayAcks(.seconds(600)), into: device)
            return (process, device)
        }

        func say(_ text: String) async throws -> Message {
            try await alice.postMessage(.text(text), clientMessageId: .random(), in: conversation.id)
        }

        /// Waits until the bot has stored `message` (its delivered watermark reached it).
        func waitUntilDelivered(_ message: Message) async throws {
            try await changes.wait(until: {
                let conversation = try await alice.conversation(self.conversation.id)
                let member = conversation.members.first { $0.userId == bot.user.id }
                return (member?.lastDeliveredSeq ?? 0) >= message.seq
            }, "the bot to store \(message.body ?? "")", timeout: .hangGuard)
        }

        /// Waits until the service stores the bot's replies `expected`, in order.
        func waitForReplies(_ expected: [String]) async throws {
            try await changes.wait(until: { try await replies() == expected }, "the replies \(expected)", timeout: .hangGuard)
        }

        /// Waits until alice sees the bot typing: its handler is running then.
        func waitUntilTyping(_ typing: TypingWatch) async throws {
            try await changes.wait(until: { typing.hasStarted }, "the bot to start typing", timeout: .hangGuard)
        }

        /// The bodies of the bot's messages in the conversation, as the server stores them.
        func replies() async throws -> [String] {
            try await alice.messages(in: conversation.id, afterSeq: 0).messages
                .filter { $0.senderId == bot.user.id }.map { $0.body ?? "" }
        }

        /// The bot's outbox entries still waiting for an acknowledgement (read while the bot is not running).
        func pendingOutbox() async throws -> [OutboxEntry] {
            let store = try await BotStore.open(path: directory.url.appendingPathComponent("data/echo.sqlite").path)
            let pending = try await store.pendingOutbox()
            await store.close()
            return pending
        }

        func stop() async {
            sandbox.service.store.changes.stopObserving(observation)
            await sandbox.shutdown()
        }
    }

    @Test func sigtermLetsTheRunningHandlerFinishAndItsReplyBeAcknowledgedThenExits0() async throws {
        let fixture = try await Fixture.start(typingSeconds: 3)
        let typing = try await fixture.watchTyping()
        // A shutdown timeout no stall of the machine outlasts: it is the bound on a handler that never ends.
        let process = try fixture.launch(["--shutdown-timeout", "120"], label: "graceful")
        #expect(await fixture.waitUntilLive(process), "\(process.errors)")
        _ = try await fixture.say("hello")
        try await fixture.waitUntilTyping(typing)

        process.send(SIGTERM)
        #expect(await process.waitForExit(timeout: .seconds(180)) == .code(0), "\(process.errors)")
        #expect(try await fixture.replies() == ["echo: hello"])
        #expect(try await fixture.pendingOutbox().isEmpty)
        #expect(process.errors.contains("received SIGTERM"))
        await typing.close()
        await fixture.stop()
    }

    /// The handler still running when a second signal ends the process did not crash it: no crash suspect.
    @Test func aSecondSignalExitsAtOnceWithoutWaitingForTheHandlerOrTakingItForACrash() async throws {
        // Typing for the longest the echo bot allows, and a shutdown timeout longer: only the second signal ends it.
        let fixture = try await Fixture.start(typingSeconds: 20)
        let process = try fixture.launch(["--shutdown-timeout", "120"], label: "impatient")
        #expect(await fixture.waitUntilLive(process), "\(process.errors)")
        let message = try await fixture.say("hello")
        try await fixture.waitUntilDelivered(message)

        process.send(SIGTERM)
        #expect(await eventually { process.errors.contains("received SIGTERM") })
        process.send(SIGTERM)
        // The second signal ends it at once: a graceful exit, after the handler's 20 s of typing, would be 0.
        #expect(await process.waitForExit(timeout: .hangGuard) == .code(128 + SIGTERM), "\(process.errors)")
        #expect(process.errors.contains("second SIGTERM: exiting now"))
        #expect(try await fixture.replies().isEmpty)
        let table = try InFlightTable(directory: fixture.directory.url.appendingPathComponent("data"))
        #expect(table.leftovers.isEmpty, "\(table.leftovers)")
        await fixture.stop()
    }

    @Test func killedBetweenWritingTheOutboxAndTheAckTheRestartedBotSendsTheReplyOnce() async throws {
        let fixture = try await Fixture.start(typingSeconds: 0)
        let (first, device) = try await fixture.launchWithAcksHeldBack(label: "killed")

        _ = try await fixture.say("hello")
        // The server stored the reply; its ack is held back, so the entry is still in the bot's outbox.
        try await fixture.waitForReplies(["echo: hello"])
        first.send(SIGKILL)
        #expect(await first.waitForExit() == .signal(SIGKILL))
        let pending = try await fixture.pendingOutbox()
        #expect(pending.map(\.message.content.body) == ["echo: hello"])

        await fixture.sandbox.admin.clearFaults(of: device)
        let second = try fixture.launch(["--shutdown-timeout", "60"], label: "restarted")
        #expect(await fixture.waitUntilLive(second), "\(second.errors)")
        second.send(SIGTERM)
        #expect(await second.waitForExit() == .code(0), "\(second.errors)")
        #expect(try await fixture.replies() == ["echo: hello"])
        #expect(try await fixture.pendingOutbox().isEmpty)
        await fixture.stop()
    }

    @Test func killedBetweenThePictureUploadAndItsAckTheRestartedBotSendsThePictureOnce() async throws {
        let fixture = try await Fixture.start(typingSeconds: 0)
        let (first, device) = try await fixture.launchWithAcksHeldBack(label: "killed-after-upload")

        let upload = try await fixture.alice.uploadMedia(Data([0x47, 0x49, 0x46, 0x38, 1, 2]), contentType: "image/gif")
        _ = try await fixture.alice.postMessage(
            .media(.photo, upload.mediaId, caption: "cat"), clientMessageId: .random(), in: fixture.conversation.id)
        // The echo uploaded its copy and the server stored the picture; the ack is held back, so the entry waits.
        try await fixture.waitForReplies(["echo: cat"])
        first.send(SIGKILL)
        #expect(await first.waitForExit() == .signal(SIGKILL))
        let pending = try await fixture.pendingOutbox()
        let mediaId = try #require(pending.first?.message.content.mediaId)
        #expect(pending.map(\.message.content.kind) == [.photo])

        await fixture.sandbox.admin.clearFaults(of: device)
        let second = try fixture.launch(["--shutdown-timeout", "60"], label: "restarted-after-upload")
        #expect(await fixture.waitUntilLive(second), "\(second.errors)")
        second.send(SIGTERM)
        #expect(await second.waitForExit() == .code(0), "\(second.errors)")
        let pictures = try await fixture.alice.messages(in: fixture.conversation.id, afterSeq: 0).messages
            .filter { $0.senderId == fixture.bot.user.id }
        #expect(pictures.map(\.body) == ["echo: cat"])
        #expect(pictures.map(\.mediaId) == [mediaId])
        #expect(try await fixture.pendingOutbox().isEmpty)
        await fixture.stop()
    }

    @Test func killedWhileTheHandlerRunsTheRestartedBotRepliesOnce() async throws {
        // Typing for the longest the echo bot allows: the kill lands while the handler runs on a slow machine too.
        let fixture = try await Fixture.start(typingSeconds: 20)
        let typing = try await fixture.watchTyping()
        let first = try fixture.launch(label: "killed-in-handler")
        #expect(await fixture.waitUntilLive(first), "\(first.errors)")
        _ = try await fixture.say("hello")
        try await fixture.waitUntilTyping(typing)
        first.send(SIGKILL)
        #expect(await first.waitForExit() == .signal(SIGKILL))
        #expect(try await fixture.replies().isEmpty)

        try fixture.writeConfiguration(typingSeconds: 0)
        let second = try fixture.launch(label: "rehandled")
        #expect(await fixture.waitUntilLive(second), "\(second.errors)")
        try await fixture.waitForReplies(["echo: hello"])
        second.send(SIGTERM)
        #expect(await second.waitForExit() == .code(0), "\(second.errors)")
        #expect(try await fixture.replies() == ["echo: hello"])
        await typing.close()
        await fixture.stop()
    }
}

/// Reads a realtime connection's events and notes when `typist` starts typing.
final class TypingWatch: Sendable {
    private let connection: ChatterRealtimeConnection
    private let started = Mutex(false)

    /// Watches `connection`; signals `changes` when `typist` starts typing.
    init(connection: ChatterRealtimeConnection, typist: User.ID, changes: ChangeSignal) {
        self.connection = connection
        Task { [self] in
            for await event in connection.events {
                if case .frame(let frame) = event, case .typing(let indicator) = frame.event,
                    indicator.userId == typist, indicator.isTyping
                {
                    self.started.withLock { $0 = true }
                    changes.signal()
                }
            }
        }
    }

    var hasStarted: Bool { started.withLock { $0 } }

    func close() async {
        _ = await connection.close()
    }
}
