import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A sandbox on a `ManualClock`, seeded with five accounts, for conformance tests over loopback sockets.
///
/// Friendships: ana–ben, ana–cleo, ben–nora, cleo–dan. nora's `privacy.lastSeen` is `nobody`, cleo's `friends`.
struct SandboxFixture {
    static let password = "correct horse"

    let sandbox: Sandbox
    let clock: ManualClock
    let accounts: SeededAccounts

    var ana: SeededAccount { account("ana") }
    var ben: SeededAccount { account("ben") }
    var cleo: SeededAccount { account("cleo") }
    var dan: SeededAccount { account("dan") }
    var nora: SeededAccount { account("nora") }

    private func account(_ username: String) -> SeededAccount {
        // The seed below creates every name used here.
        accounts[username] ?? accounts.users[0]
    }

    static var seed: SandboxSeed {
        SandboxSeed(
            users: [
                SandboxUserSeed(username: "ana", password: password, displayName: "Ana Souza"),
                SandboxUserSeed(username: "ben", password: password, displayName: "Ben Tan"),
                SandboxUserSeed(username: "cleo", password: password, displayName: "Cleo Park", lastSeen: .friends),
                SandboxUserSeed(username: "dan", password: password, displayName: "Dan Roy"),
                SandboxUserSeed(username: "nora", password: password, displayName: "Nora Vale", lastSeen: .nobody),
            ],
            friendships: [
                SandboxFriendship("ana", "ben"), SandboxFriendship("ana", "cleo"), SandboxFriendship("ben", "nora"),
                SandboxFriendship("cleo", "dan"),
            ])
    }

    /// Runs `body` against a fresh sandbox and shuts it down afterwards, also when `body` throws.
    static func run(
        realtime: RealtimeConfiguration = .init(),
        service: SandboxServiceConfiguration = SandboxServiceConfiguration(passwordHashIterations: 1_000),
        port: Int = 0,
        _ body: (SandboxFixture) async throws -> Void
    ) async throws {
        let clock = ManualClock()
        let sandbox = try await Sandbox.start(
            SandboxConfiguration(port: port, clock: clock, service: service, realtime: realtime, seed: seed))
        let fixture = SandboxFixture(sandbox: sandbox, clock: clock, accounts: sandbox.seeded)
        do {
            try await body(fixture)
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    /// A REST client signed in as `account`'s seeded device.
    func rest(_ account: SeededAccount) -> ChatterRESTClient {
        ChatterRESTClient(
            configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: account.session.tokens),
            clientSecret: sandbox.clientSecret, requestTimeouts: .hangGuard)
    }

    /// Signs `account` in on a second, new device; returns that device's session.
    func signInNewDevice(_ account: SeededAccount, name: String) async throws -> AuthSession {
        let client = ChatterRESTClient(configuration: sandbox.serverConfiguration, requestTimeouts: .hangGuard)
        return try await client.login(
            username: account.user.username, password: Self.password, deviceId: nil,
            device: DeviceDescription(name: name, platform: "test"))
    }

    /// A REST client for another device's session.
    func rest(_ session: AuthSession) -> ChatterRESTClient {
        ChatterRESTClient(
            configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: session.tokens),
            clientSecret: sandbox.clientSecret, requestTimeouts: .hangGuard)
    }

    /// The direct conversation of two friends (created on first use).
    func direct(_ a: SeededAccount, _ b: SeededAccount) async throws -> Conversation {
        try await rest(a).directConversation(with: b.user.id)
    }

    /// Connects `account`'s seeded device and reads `session.ready` and `presence.snapshot`.
    func connect(_ account: SeededAccount) async throws -> RealtimeTestClient {
        try await RealtimeTestClient.signIn(account, to: sandbox).client
    }

    func connect(_ session: AuthSession) async throws -> RealtimeTestClient {
        try await RealtimeTestClient.signIn(accessToken: session.accessToken, to: sandbox).client
    }

    /// A text `message.send` request.
    static func text(_ body: String, in conversation: Conversation.ID, key: ClientMessageID = .random()) -> ClientRequest {
        .sendMessage(MessageSend(conversationId: conversation, clientMessageId: key, content: .text(body)))
    }

    /// Sends a text message over `client` and returns its ack (failing on an error frame).
    @discardableResult
    func send(
        _ body: String, in conversation: Conversation.ID, over client: RealtimeTestClient, key: ClientMessageID = .random(),
        id: String = "send"
    ) async throws -> MessageAck {
        try await client.send(Self.text(body, in: conversation, key: key), id: id)
        let (frame, _) = try await client.next { event in
            if case .messageAck = event { return true }
            if case .error = event { return true }
            return false
        }
        guard case .messageAck(let ack) = frame.event, frame.replyTo == id else {
            throw RealtimeTestClientError(description: "expected message.ack for \(id), got \(frame)")
        }
        return ack
    }

    /// Waits (in real time) until the hub noticed that the device's socket closed, so that what follows (a grace
    /// period, a push decision) starts from a known state.
    func waitUntilDisconnected(_ deviceId: Device.ID) async throws {
        let sandbox = sandbox
        guard await eventually(timeout: .hangGuard, { await !sandbox.hub.isConnected(deviceId) }) else {
            throw RealtimeTestClientError(description: "device \(deviceId) is still connected")
        }
    }

    /// Waits (in real time) until the user is offline and their last-seen time is stored.
    func waitUntilOffline(_ userId: User.ID) async throws {
        let end = ContinuousClock.now + .hangGuard
        while ContinuousClock.now < end {
            if await !sandbox.hub.isOnline(userId), try await sandbox.service.lastSeen(of: userId) != nil { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RealtimeTestClientError(description: "user \(userId) is still online")
    }

    /// A push token in APNs' form: 64 hex characters.
    static func pushToken(_ seed: UInt8) -> String {
        String(repeating: String(format: "%02x", seed), count: 32)
    }
}

extension ServerEvent {
    var isMessageNew: Bool { if case .messageNew = self { true } else { false } }
    var isPresence: Bool { if case .presence = self { true } else { false } }
    var isTyping: Bool { if case .typing = self { true } else { false } }
    var isReceipt: Bool { if case .receiptUpdated = self { true } else { false } }

    var message: Message? { if case .messageNew(let message) = self { message } else { nil } }
}
