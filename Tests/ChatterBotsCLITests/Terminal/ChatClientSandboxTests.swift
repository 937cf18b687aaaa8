@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

/// The terminal client end to end against an in-process sandbox over loopback: alice uses the client, bob is
/// driven by the test through the REST client and a realtime connection.
@Suite("ChatClient against the sandbox", .serialized)
struct ChatClientSandboxTests {
    static let password = "sandbox-password"

    /// A running sandbox where alice and bob are friends, bob connected, and a client for alice.
    struct Harness {
        let sandbox: Sandbox
        let alice: SeededAccount
        let bob: SeededAccount
        let bobREST: ChatterRESTClient
        let bobSocket: ChatterRealtimeConnection
        let bobEvents: EventCollector
        let dataDirectory: URL

        /// Alice's client: its waits in real time (session.ready, replies, REST requests) are hang guards.
        func clientConfiguration() -> ChatClientConfiguration {
            var configuration = ChatClientConfiguration(
                server: sandbox.serverConfiguration, username: "alice", password: ChatClientSandboxTests.password,
                dataDirectory: dataDirectory, timeZone: TimeZone(identifier: "UTC") ?? .current,
                reconnectPolicy: ReconnectPolicy(delays: [.milliseconds(50)], jitter: 0), connectionOptions: .patient)
            configuration.restRequestTimeouts = .hangGuard
            return configuration
        }
    }

    /// Bob's realtime events, kept for the test to wait on.
    final class EventCollector: Sendable {
        private let events = Mutex<[ServerEvent]>([])
        private let changes = ChangeSignal()

        func record(_ event: ServerEvent) {
            events.withLock { $0.append(event) }
            changes.signal()
        }

        /// Waits for an event `matching` returns a value for, woken by each event recorded.
        func wait<T: Sendable>(timeout: Duration = .hangGuard, for matching: @Sendable (ServerEvent) -> T?) async throws -> T {
            var found: T?
            do {
                try await changes.wait(until: {
                    found = events.withLock { $0.lazy.compactMap(matching).first }
                    return found != nil
                }, "a matching event", timeout: timeout)
            } catch is DeadlineExceeded {
                throw EventWaitTimedOut()
            }
            guard let found else { throw EventWaitTimedOut() }
            return found
        }

    }

    struct EventWaitTimedOut: Error {}

    static func withHarness(_ body: (Harness) async throws -> Void) async throws {
        let seed = SandboxSeed(
            users: [
                SandboxUserSeed(username: "alice", password: password, displayName: "Alice"),
                SandboxUserSeed(username: "bob", password: password, displayName: "Bob"),
            ],
            friendships: [SandboxFriendship("alice", "bob")])
        var configuration = SandboxConfiguration(seed: seed)
        configuration.passwordHashIterations = 1_000
        // On the real clock: bob's socket, which never pings, is not closed as idle however long the machine stalls.
        configuration.realtime.idleTimeout = .seconds(3 * 365 * 86_400)
        let sandbox = try await Sandbox.start(configuration)
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("chat-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        do {
            guard let alice = sandbox.seeded["alice"], let bob = sandbox.seeded["bob"] else {
                throw EventWaitTimedOut()
            }
            let bobREST = ChatterRESTClient(
                configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: bob.session.tokens),
                requestTimeouts: .hangGuard)
            let bobSocket = try await ChatterRealtimeConnection.connect(
                configuration: sandbox.serverConfiguration, accessToken: bob.session.accessToken, options: .patient)
            let collector = EventCollector()
            let reader = Task {
                for await event in bobSocket.events {
                    if case .frame(let frame) = event { collector.record(frame.event) }
                }
            }
            let harness = Harness(
                sandbox: sandbox, alice: alice, bob: bob, bobREST: bobREST, bobSocket: bobSocket, bobEvents: collector,
                dataDirectory: dataDirectory)
            do {
                try await body(harness)
            } catch {
                await bobSocket.close()
                reader.cancel()
                throw error
            }
            await bobSocket.close()
            reader.cancel()
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    /// alice's client, running until `/quit`: her typed lines go through `type`.
    struct RunningClient {
        let screen: ScreenRecording
        let keyboard: AsyncStream<String>.Continuation
        let task: Task<Result<Void, ChatClientError>, Never>

        func type(_ line: String) { keyboard.yield(line) }

        func quit() async throws {
            keyboard.yield("/quit")
            try await value(of: task, within: .hangGuard, "the chat client to quit").get()
        }
    }

    /// Starts the client with `configuration` and waits until it is connected, in its direct conversation with bob.
    static func startInConversationWithBob(_ configuration: ChatClientConfiguration) async throws -> RunningClient {
        let client = start(configuration)
        try await client.screen.waitForLine(containing: "Connected:")
        client.type("/dm bob")
        try await client.screen.waitForLine(containing: "No messages yet")
        return client
    }

    static func start(_ configuration: ChatClientConfiguration, typing: AsyncStream<Bool>? = nil) -> RunningClient {
        let screen = ScreenRecording()
        let (input, keyboard) = AsyncStream<String>.makeStream()
        let client = ChatClient(configuration: configuration)
        let display = screen.display
        let task = Task { () -> Result<Void, ChatClientError> in
            do throws(ChatClientError) {
                try await client.run(input: input, typing: typing, display: display)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        return RunningClient(screen: screen, keyboard: keyboard, task: task)
    }

    static func typing(of user: User.ID, isTyping: Bool) -> @Sendable (ServerEvent) -> TypingIndicator? {
        { event in
            if case .typing(let indicator) = event, indicator.userId == user, indicator.isTyping == isTyping { return indicator }
            return nil
        }
    }

    static func newMessage(_ body: String) -> @Sendable (ServerEvent) -> Message? {
        { event in
            if case .messageNew(let message) = event, message.body == body { return message }
            return nil
        }
    }

    // MARK: Tests

    @Test func aliceSeesBobsMessageAndBobReceivesAlices() async throws {
        try await Self.withHarness { harness in
            let client = Self.start(harness.clientConfiguration())
            try await client.screen.waitForLine(containing: "Connected: messages arrive live.")
            client.type("/dm bob")
            try await client.screen.waitForLine(containing: "── bob · direct conversation")
            try await client.screen.waitForLine(containing: "No messages yet")

            let conversation = try await harness.bobREST.directConversation(with: harness.alice.user.id)
            _ = try await harness.bobSocket.sendMessage(MessageSend(
                conversationId: conversation.id, clientMessageId: .random(), content: .text("hi alice, it's bob")))
            try await client.screen.waitForLine(containing: "bob: hi alice, it's bob")

            client.type("hello bob")
            let received = try await harness.bobEvents.wait(for: Self.newMessage("hello bob"))
            #expect(received.senderId == harness.alice.user.id)
            #expect(received.conversationId == conversation.id)
            try await client.screen.waitForLine(containing: "alice: hello bob")

            try await client.quit()
            #expect(client.screen.text.last == "Bye.")
        }
    }

    @Test func bobSeesAliceTypingUntilSheClearsHerField() async throws {
        try await Self.withHarness { harness in
            let (typing, field) = AsyncStream<Bool>.makeStream()
            let client = Self.start(harness.clientConfiguration(), typing: typing)
            try await client.screen.waitForLine(containing: "Connected:")
            client.type("/dm bob")
            try await client.screen.waitForLine(containing: "No messages yet")
            field.yield(true)
            _ = try await harness.bobEvents.wait(for: Self.typing(of: harness.alice.user.id, isTyping: true))
            field.yield(false)
            _ = try await harness.bobEvents.wait(for: Self.typing(of: harness.alice.user.id, isTyping: false))
            try await client.quit()
        }
    }

    @Test func anAnswerSentTheMomentAlicesMessageArrivesShowsBelowIt() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())
            client.type("are you there?")
            let question = try await harness.bobEvents.wait(for: Self.newMessage("are you there?"))
            _ = try await harness.bobSocket.sendMessage(MessageSend(
                conversationId: question.conversationId, clientMessageId: .random(), content: .text("right here")))
            try await client.screen.waitForLine(containing: "bob: right here")
            let lines = client.screen.text
            let asked = try #require(lines.firstIndex { $0.contains("alice: are you there?") })
            let answered = try #require(lines.firstIndex { $0.contains("bob: right here") })
            #expect(asked < answered)
            try await client.quit()
        }
    }

    @Test func bobsTypingAndReceiptsReachAlicesScreen() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())

            client.type("are you there?")
            let message = try await harness.bobEvents.wait(for: Self.newMessage("are you there?"))
            try await client.screen.waitForLine(containing: "alice: are you there?")

            let typingFrom = client.screen.count
            try await harness.bobSocket.send(.typingStart(conversationId: message.conversationId))
            try await client.screen.waitForLine(containing: "bob is typing…", after: typingFrom)
            try await harness.bobSocket.send(.typingStop(conversationId: message.conversationId))
            try await client.screen.waitForLine(containing: "bob stopped typing.", after: typingFrom)

            try await harness.bobSocket.send(.receiptDelivered(ReceiptPosition(conversationId: message.conversationId, seq: message.seq)))
            try await client.screen.waitForLine(containing: "✓ delivered to bob: \"are you there?\"")
            try await harness.bobSocket.send(.receiptRead(ReceiptPosition(conversationId: message.conversationId, seq: message.seq)))
            try await client.screen.waitForLine(containing: "✓✓ read by bob: \"are you there?\"")
            try await client.quit()
        }
    }

    @Test func aliceReadingBobsMessageMovesHerWatermarkForBob() async throws {
        try await Self.withHarness { harness in
            let conversation = try await harness.bobREST.directConversation(with: harness.alice.user.id)
            let ack = try await harness.bobSocket.sendMessage(MessageSend(
                conversationId: conversation.id, clientMessageId: .random(), content: .text("unread until opened")))

            let client = Self.start(harness.clientConfiguration())
            try await client.screen.waitForLine(containing: "1 unread")
            client.type("/open 1")
            try await client.screen.waitForLine(containing: "bob: unread until opened")
            let receipt = try await harness.bobEvents.wait { event -> ReceiptUpdate? in
                if case .receiptUpdated(let update) = event, update.userId == harness.alice.user.id, update.lastReadSeq >= ack.seq {
                    return update
                }
                return nil
            }
            #expect(receipt.conversationId == conversation.id)
            try await client.quit()
        }
    }

    @Test func aMessageWhoseAckIsLostIsResentAfterTheReconnectAndArrivesOnce() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())

            let devices = await harness.sandbox.admin.connectedDevices()
            let aliceDevice = try #require(devices.first { $0 != harness.bob.session.deviceId })
            try await harness.sandbox.admin.inject(.dropBeforeNextAck, into: aliceDevice)
            client.type("through the storm")
            try await client.screen.waitForLine(containing: "Connection lost")
            try await client.screen.waitForLine(containing: "Reconnected.")
            try await client.screen.waitForLine(containing: "alice: through the storm")
            _ = try await harness.bobEvents.wait(for: Self.newMessage("through the storm"))

            let page = try await harness.bobREST.messages(in: try #require(client.openConversation(harness)), afterSeq: 0)
            #expect(page.messages.filter { $0.body == "through the storm" }.count == 1)
            #expect(client.screen.text.filter { $0.contains("alice: through the storm") }.count == 1)
            try await client.quit()
        }
    }

    @Test func messagesSentWhileTheSocketWasDownAreCaughtUpAfterTheReconnect() async throws {
        try await Self.withHarness { harness in
            let conversation = try await harness.bobREST.directConversation(with: harness.alice.user.id)
            var configuration = harness.clientConfiguration()
            configuration.reconnectPolicy = ReconnectPolicy(delays: [.milliseconds(600)], jitter: 0)
            let client = Self.start(configuration)
            try await client.screen.waitForLine(containing: "Connected:")
            client.type("/open bob")
            try await client.screen.waitForLine(containing: "No messages yet")

            let devices = await harness.sandbox.admin.connectedDevices()
            let aliceDevice = try #require(devices.first { $0 != harness.bob.session.deviceId })
            try await harness.sandbox.admin.inject(.dropSocket, into: aliceDevice)
            try await client.screen.waitForLine(containing: "Connection lost")
            _ = try await harness.bobREST.postMessage(.text("sent while you were away"), clientMessageId: .random(), in: conversation.id)
            try await client.screen.waitForLine(containing: "Reconnected.")
            try await client.screen.waitForLine(containing: "bob: sent while you were away")
            try await client.quit()
        }
    }

    /// With 3,000 conversations one `sync.request` naming them all passes the service's 64 KiB frame limit, and the
    /// service closes the socket with 1009 at every connect: the client cuts it into several (`SyncPlan`) and stays
    /// connected.
    @Test func anAccountInThousandsOfConversationsCatchesUpWithoutPassingTheFrameLimit() async throws {
        try await Self.withHarness { harness in
            for index in 0..<3_000 {
                _ = try await harness.sandbox.service.createConversation(
                    harness.bob.caller, .group(title: "group \(index)", memberIds: [harness.alice.user.id]))
            }
            let conversation = try await harness.bobREST.directConversation(with: harness.alice.user.id)
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())
            _ = try await harness.bobREST.postMessage(.text("after the catch-up"), clientMessageId: .random(), in: conversation.id)
            try await client.screen.waitForLine(containing: "bob: after the catch-up")
            let device = try await Self.aliceDevice(harness)
            let closes = await harness.sandbox.admin.socketEvents().filter { $0.deviceId == device && $0.closeCode != nil }
            #expect(closes.isEmpty, "\(closes)")
            try await client.quit()
        }
    }

    /// Alice's client in her conversation with bob, after the service refused her "refused once" for now (`INTERNAL`).
    static func startWithAMessageRefusedForNow(_ harness: Harness) async throws -> (Conversation, RunningClient) {
        let conversation = try await harness.bobREST.directConversation(with: harness.alice.user.id)
        let client = try await startInConversationWithBob(harness.clientConfiguration())
        harness.sandbox.admin.failRequests(to: .postMessage, count: 1)
        client.type("refused once")
        try await client.screen.waitForLine(containing: "Not sent yet: \"refused once\"")
        return (conversation, client)
    }

    /// A message refused for now that the person cancels is never sent: the message typed after it, which the one
    /// sender sends only once that one is done with, is the only one stored.
    @Test func aMessageRefusedForNowAndCancelledIsNeverSent() async throws {
        try await Self.withHarness { harness in
            let (conversation, client) = try await Self.startWithAMessageRefusedForNow(harness)
            client.type("/cancel")
            try await client.screen.waitForLine(containing: "✗ Cancelled: \"refused once\" will not be sent.")
            client.type("after it")
            let received = try await harness.bobEvents.wait(for: Self.newMessage("after it"))
            let stored = try await harness.bobREST.messages(in: conversation.id, afterSeq: 0).messages
            #expect(stored.map(\.id) == [received.id])
            try await client.quit()
        }
    }

    /// A message the service refuses for now (`INTERNAL`) stays pending, goes again with its clientMessageId after
    /// the backoff, and arrives once.
    @Test func aMessageRefusedForNowIsSentAgainAndArrivesOnce() async throws {
        try await Self.withHarness { harness in
            let (conversation, client) = try await Self.startWithAMessageRefusedForNow(harness)
            let received = try await harness.bobEvents.wait(for: Self.newMessage("refused once"))
            try await client.screen.waitForLine(containing: "alice: refused once")
            let stored = try await harness.bobREST.messages(in: conversation.id, afterSeq: 0).messages
            #expect(stored.map(\.id) == [received.id])
            #expect(!client.screen.text.contains { $0.contains("✗ Not sent") })
            try await client.quit()
        }
    }

    /// alice's device, once her client is connected.
    static func aliceDevice(_ harness: Harness) async throws -> Device.ID {
        let devices = await harness.sandbox.admin.connectedDevices()
        return try #require(devices.first { $0 != harness.bob.session.deviceId })
    }

    /// alice's message reaches bob: the connection works.
    static func expectAliceReachesBob(_ client: RunningClient, _ harness: Harness, saying body: String) async throws {
        client.type(body)
        let received = try await harness.bobEvents.wait(for: Self.newMessage(body))
        #expect(received.senderId == harness.alice.user.id)
    }

    /// `printf '/open bob\nhello\n' | example-bots chat`: the input ends at once, before the message can have been
    /// acknowledged; the client stays until it is, and leaves without an error.
    @Test func aMessagePipedInIsSentBeforeTheClientLeavesAtTheEndOfInput() async throws {
        try await Self.withHarness { harness in
            _ = try await harness.bobREST.directConversation(with: harness.alice.user.id)
            let client = Self.start(harness.clientConfiguration())
            client.type("/open bob")
            client.type("piped in")
            client.keyboard.finish()
            try await value(of: client.task, within: .hangGuard, "the chat client to leave").get()
            _ = try await harness.bobEvents.wait(for: Self.newMessage("piped in"))
            #expect(client.screen.text.last == "Bye.")
            #expect(!client.screen.text.contains { $0.contains("not acknowledged") }, "\(client.screen.text)")
        }
    }

    /// `printf '/dm bob\nhello\n' | example-bots chat` with no conversation yet: the text waits for the one the
    /// server opens, and goes there.
    @Test func aMessagePipedInAfterDmGoesToTheConversationTheServerOpens() async throws {
        try await Self.withHarness { harness in
            let client = Self.start(harness.clientConfiguration())
            client.type("/dm bob")
            client.type("piped in after dm")
            client.keyboard.finish()
            try await value(of: client.task, within: .hangGuard, "the chat client to leave").get()
            let received = try await harness.bobEvents.wait(for: Self.newMessage("piped in after dm"))
            #expect(received.senderId == harness.alice.user.id)
            #expect(client.screen.text.last == "Bye.")
            #expect(!client.screen.text.contains { $0.contains("No conversation is open") }, "\(client.screen.text)")
        }
    }

    /// The end of input waits a bounded time, on the client's clock, for the acknowledgements: past it, the client
    /// leaves with an error counting the messages that may not have been sent.
    @Test func aMessageStillUnacknowledgedWhenTheWaitAtTheEndOfInputEndsIsAnError() async throws {
        try await Self.withHarness { harness in
            let clock = ManualClock()
            var configuration = harness.clientConfiguration()
            configuration.connectionOptions.clock = clock
            configuration.reconnectPolicy = ReconnectPolicy(delays: [.seconds(3600)], jitter: 0)
            let client = try await Self.startInConversationWithBob(configuration)
            try await harness.sandbox.admin.inject(.dropSocket, into: try await Self.aliceDevice(harness))
            try await client.screen.waitForLine(containing: "Connection lost")

            client.type("while offline")
            client.keyboard.finish()
            try await client.screen.waitForLine(containing: "Waiting up to 15 s for 1 message to be acknowledged")
            try await clock.waitForSleepers(2)  // the reconnect's and the wait's
            await clock.advance(by: ChatScreen.acknowledgementWait)
            let result = try await value(of: client.task, within: .hangGuard, "the chat client to leave")
            guard case .failure(.messagesNotAcknowledged(let count)) = result else {
                Issue.record("expected messagesNotAcknowledged, got \(result)")
                return
            }
            #expect(count == 1)
            #expect(client.screen.text.suffix(2) == ["1 message was not acknowledged and may not have been sent.", "Bye."])
        }
    }

    @Test func aCatchUpThatFailsIsTriedAgainOnANewConnection() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())
            let device = try await Self.aliceDevice(harness)
            harness.sandbox.admin.failRequests(to: .friends, count: 1)
            let before = client.screen.count
            try await harness.sandbox.admin.inject(.dropSocket, into: device)
            try await client.screen.waitForLine(containing: "Could not fetch what was missed while offline", after: before)
            let failed = client.screen.count
            try await client.screen.waitForLine(containing: "Reconnected.", after: failed)
            try await Self.expectAliceReachesBob(client, harness, saying: "after the second catch-up")
            try await client.quit()
        }
    }

    @Test func anExpiredTokenIsRefreshedAndTheClientReconnectsAtOnce() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())

            try await harness.sandbox.admin.inject(.expireToken, into: try await Self.aliceDevice(harness))
            let lost = try await client.screen.waitForLine(containing: "Connection lost")
            #expect(lost.contains("reconnecting in 0.0 s"))
            try await client.screen.waitForLine(containing: "Reconnected.")
            try await Self.expectAliceReachesBob(client, harness, saying: "after the refresh")
            try await client.quit()
        }
    }

    @Test func tokensRefusedOnARequestWhileConnectedSignInAgainAndTheChatGoesOn() async throws {
        try await Self.withHarness { harness in
            let client = Self.start(harness.clientConfiguration())
            try await client.screen.waitForLine(containing: "Connected:")
            try await harness.sandbox.admin.expireTokensKeepingSockets(of: try await Self.aliceDevice(harness))

            client.type("/dm bob")  // a REST request: its token and then its refresh are refused
            try await client.screen.waitForLine(containing: "Connection lost")
            try await client.screen.waitForLine(containing: "Reconnected.")
            client.type("/dm bob")
            try await client.screen.waitForLine(containing: "No messages yet")
            try await Self.expectAliceReachesBob(client, harness, saying: "after signing in again")
            try await client.quit()
        }
    }

    @Test func aRefusedClientKeyStopsTheClientSayingWhatToCheck() async throws {
        try await Self.withHarness { harness in
            let client = Self.start(harness.clientConfiguration())
            try await client.screen.waitForLine(containing: "Connected:")

            try await harness.sandbox.admin.inject(.close(code: 4002, reason: "client key invalid"), into: try await Self.aliceDevice(harness))
            let result = try await value(of: client.task, within: .hangGuard, "the chat client to stop")
            guard case .failure(let error) = result, case .clientKeyRejected = error else {
                Issue.record("expected clientKeyRejected, got \(result)")
                return
            }
            #expect(error.description.contains("--client-key"))
        }
    }

    @Test func aRevokedDeviceStopsTheClientAndIsForgottenSoTheNextRunSignsInAsANewOne() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())
            let file = ChatDeviceFile(dataDirectory: harness.dataDirectory, username: "alice")
            let revoked = try await Self.aliceDevice(harness)

            try await harness.sandbox.admin.inject(.revokeDevice, into: revoked)
            let outcome = try await value(of: client.task, within: .hangGuard, "the chat client to stop")
            guard case .failure(.signedOut(let username)) = outcome else {
                Issue.record("expected signedOut, got \(outcome)")
                return
            }
            #expect(username == "alice")
            #expect(try file.load() == nil, "the device file is gone")

            let again = try await Self.startInConversationWithBob(harness.clientConfiguration())
            let device = try #require(try file.load())
            #expect(device != revoked)
            try await Self.expectAliceReachesBob(again, harness, saying: "as a new device")
            try await again.quit()
        }
    }

    @Test func aRateLimitCloseWaitsTheSecondsOfItsReasonBeforeReconnecting() async throws {
        try await Self.withHarness { harness in
            let clock = ManualClock()
            var configuration = harness.clientConfiguration()
            configuration.connectionOptions.clock = clock
            let client = Self.start(configuration)
            try await client.screen.waitForLine(containing: "Connected:")
            let device = try await Self.aliceDevice(harness)

            let sockets = ChangeSignal()
            let observation = harness.sandbox.service.store.changes.observe { sockets.signal() }
            defer { harness.sandbox.service.store.changes.stopObserving(observation) }
            try await harness.sandbox.admin.inject(.close(code: 4008, reason: "30"), into: device)
            try await client.screen.waitForLine(containing: "reconnecting in 30 s")
            // The client may hear the close before the sandbox has let the socket go. Only the client's clock ends
            // the wait, and it has not moved.
            try await sockets.wait(until: { !(await harness.sandbox.admin.connectedDevices().contains(device)) }, "the sandbox drops the socket")
            await clock.advance(by: .seconds(30))
            try await client.screen.waitForLine(containing: "Reconnected.")
            #expect(await harness.sandbox.admin.connectedDevices().contains(device))
            try await client.quit()
        }
    }

    @Test func aNormalCloseByTheServerReconnectsAfterTheBackoff() async throws {
        try await Self.withHarness { harness in
            let client = try await Self.startInConversationWithBob(harness.clientConfiguration())

            try await harness.sandbox.admin.inject(.close(code: 1000, reason: "maintenance"), into: try await Self.aliceDevice(harness))
            let lost = try await client.screen.waitForLine(containing: "Connection lost")
            #expect(lost.contains("reconnecting in 0.1 s") || lost.contains("reconnecting in 0.0 s"))
            try await client.screen.waitForLine(containing: "Reconnected.")
            try await Self.expectAliceReachesBob(client, harness, saying: "after the maintenance")
            try await client.quit()
        }
    }

    @Test func repeatedRunsSignInAsTheSameDevice() async throws {
        try await Self.withHarness { harness in
            let first = Self.start(harness.clientConfiguration())
            try await first.screen.waitForLine(containing: "Connected:")
            try await first.quit()
            let file = ChatDeviceFile(dataDirectory: harness.dataDirectory, username: "alice")
            let device = try #require(try file.load())

            let second = Self.start(harness.clientConfiguration())
            try await second.screen.waitForLine(containing: "Connected:")
            #expect(await harness.sandbox.admin.connectedDevices().contains(device))
            #expect(try file.load() == device)
            try await second.quit()
        }
    }

    @Test func aWrongPasswordStopsWithAnErrorSayingWhatToCheck() async throws {
        try await Self.withHarness { harness in
            var configuration = harness.clientConfiguration()
            configuration.password = "not the password"
            let client = Self.start(configuration)
            let result = try await value(of: client.task, within: .hangGuard, "the chat client to stop")
            guard case .failure(let error) = result, case .invalidCredentials = error else {
                Issue.record("expected invalidCredentials, got \(result)")
                return
            }
            #expect(error.description.contains("--password"))
        }
    }

    @Test func anUnreachableServerSaysToStartIt() async throws {
        let configuration = ChatClientConfiguration(
            server: ChatterServerConfiguration(
                apiBaseURL: URL(string: "http://127.0.0.1:9/v1") ?? URL(fileURLWithPath: "/"),
                webSocketURL: URL(string: "ws://127.0.0.1:9/v1/ws") ?? URL(fileURLWithPath: "/"), clientKey: "ck_sandbox"),
            username: "alice", password: Self.password)
        let result = try await value(of: Self.start(configuration).task, within: .hangGuard, "the chat client to stop")
        guard case .failure(let error) = result, case .serverUnreachable = error else {
            Issue.record("expected serverUnreachable, got \(result)")
            return
        }
        #expect(error.description.contains("example-bots run"))
    }
}

extension ChatClientSandboxTests.RunningClient {
    /// The direct conversation between alice and bob, as bob's REST client finds it.
    func openConversation(_ harness: ChatClientSandboxTests.Harness) async throws -> Conversation.ID? {
        try await harness.bobREST.directConversation(with: harness.alice.user.id).id
    }
}
