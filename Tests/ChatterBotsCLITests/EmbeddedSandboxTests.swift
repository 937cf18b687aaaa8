@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import TestSupport

@Suite("embedded sandbox")
struct EmbeddedSandboxTests {
    static let bot = BotConfiguration(
        name: "echo", kind: "echo", credentials: BotCredentials(username: "echo_bot", password: "echo-password"),
        friendRequests: .everyone)

    func client(_ sandbox: EmbeddedSandbox) -> ChatterRESTClient {
        ChatterRESTClient(configuration: sandbox.sandbox.serverConfiguration, requestTimeouts: .hangGuard)
    }

    func signIn(_ sandbox: EmbeddedSandbox, _ username: String, _ password: String) async throws -> ChatterRESTClient {
        let client = client(sandbox)
        _ = try await client.login(
            username: username, password: password, deviceId: nil, device: DeviceDescription(name: "test", platform: "test"))
        return client
    }

    @Test func theTestAccountsAndTheBotsAccountsExistAndEveryPersonIsFriendsWithEveryBot() async throws {
        let sandbox = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0, bots: [Self.bot])
        #expect(sandbox.problems.isEmpty)
        let alice = try await signIn(sandbox, "alice", SandboxTestAccount.alice.password)
        #expect(Set(try await alice.friends().map(\.user.username)) == ["bob", "echo_bot"])
        let bot = try await signIn(sandbox, "echo_bot", "echo-password")
        #expect(Set(try await bot.friends().map(\.user.username)) == ["alice", "bob"])
        await sandbox.shutdown()
    }

    @Test func restartingOnTheSameDataKeepsTheAccountsAndTheirConversations() async throws {
        let directory = try TemporaryDirectory()
        let first = try await EmbeddedSandbox.start(dataDirectory: directory.url, port: 0, bots: [Self.bot])
        let alice = try await signIn(first, "alice", SandboxTestAccount.alice.password)
        let botId = try #require(try await alice.friends().first { $0.user.username == "echo_bot" }?.user.id)
        let conversation = try await alice.directConversation(with: botId)
        await first.shutdown()

        let second = try await EmbeddedSandbox.start(dataDirectory: directory.url, port: 0, bots: [Self.bot])
        #expect(second.problems.isEmpty)
        let again = try await signIn(second, "alice", SandboxTestAccount.alice.password)
        #expect(try await again.conversations().map(\.id) == [conversation.id])
        #expect(FileManager.default.fileExists(atPath: EmbeddedSandbox.databaseURL(in: directory.url).path))
        await second.shutdown()
    }

    @Test func anAccountKeptWithAnotherPasswordIsReportedAndTheRestIsProvisioned() async throws {
        let directory = try TemporaryDirectory()
        let first = try await EmbeddedSandbox.start(dataDirectory: directory.url, port: 0, bots: [Self.bot])
        await first.shutdown()
        var changed = Self.bot
        changed.credentials.password = "another-password"
        let second = try await EmbeddedSandbox.start(dataDirectory: directory.url, port: 0, bots: [changed])
        #expect(second.problems.count == 1)
        #expect(second.problems.first?.contains(#""echo_bot" exists with another password"#) == true)
        _ = try await signIn(second, "bob", SandboxTestAccount.bob.password)
        await second.shutdown()
    }

    @Test(arguments: [
        ("greet-bot", "echo-password", "A username has 3 to 32 characters"),
        ("greet_bot", "pw123", "A password has 8 to 256 characters"),
    ])
    func aBotAccountTheSandboxRefusesIsReportedWithItsRuleNotAsAnotherPassword(
        username: String, password: String, rule: String
    ) async throws {
        var refused = Self.bot
        refused.credentials = BotCredentials(username: username, password: password)
        let sandbox = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0, bots: [refused])
        #expect(sandbox.problems.count == 1)
        let problem = try #require(sandbox.problems.first)
        #expect(problem.hasPrefix(#"the sandbox account "\#(username)" cannot be created: VALIDATION_FAILED: \#(rule)"#))
        #expect(!problem.contains("another password"))
        await sandbox.shutdown()
    }
}
