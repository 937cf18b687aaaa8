@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import BotRuntimeTestSupport
import TestSupport

/// `example-bots chat`: its options, where it connects, and a whole session in process.
@Suite("chat command")
struct ChatCommandLineTests {
    static func environment(
        in directory: TemporaryDirectory, variables: [String: String] = [:], input: [String] = [],
        output: CapturedLines = CapturedLines(), errors: CapturedLines = CapturedLines()
    ) -> CommandEnvironment {
        CommandEnvironment(
            workingDirectory: directory.url, variables: variables, standardOutput: output, standardError: errors,
            shutdown: ShutdownRequest(), watchesSignals: false, clock: SystemClock(),
            makeSession: { member, _ in StandInSession(member.configuration.name) },
            standardInput: {
                let (stream, continuation) = AsyncStream<String>.makeStream()
                for line in input { continuation.yield(line) }
                continuation.finish()
                return stream
            }, restRequestTimeouts: .hangGuard)
    }

    static func options(_ arguments: String...) throws -> BotCommand.ChatOptions {
        guard case .chat(let options) = try BotCommand.parse(["chat"] + arguments) else {
            throw ProcessTestError("not a chat command")
        }
        return options
    }

    // MARK: Parsing

    @Test func chatNeedsOnlyWhoIsChatting() throws {
        #expect(try Self.options("--as", "alice") == BotCommand.ChatOptions(username: "alice"))
    }

    @Test func everyOptionIsRead() throws {
        let options = try Self.options(
            "--as", "ana", "--password", "secret", "--api", "https://chat.example/v1", "--ws", "wss://chat.example/v1/ws",
            "--client-key", "ck_live", "--data", "state")
        #expect(options == BotCommand.ChatOptions(
            username: "ana", password: "secret", apiURL: "https://chat.example/v1", webSocketURL: "wss://chat.example/v1/ws",
            clientKey: "ck_live", dataDirectory: "state"))
        #expect(try Self.options("--as=bob", "-c", "other.json", "--sandbox-port", "9000")
            == BotCommand.ChatOptions(username: "bob", configuration: "other.json", sandboxPort: 9000))
    }

    @Test func chatWithoutAUserSaysWhoToBe() {
        #expect(throws: CommandLineUsageError("chat needs --as USER: who you are (alice or bob on the sandbox)", command: "chat")) {
            try BotCommand.parse(["chat"])
        }
    }

    @Test func aConfigurationAndAnAPIURLExcludeEachOther() {
        #expect(throws: CommandLineUsageError("chat takes --config FILE or --api URL, not both", command: "chat")) {
            try BotCommand.parse(["chat", "--as", "alice", "--config", "bots.json", "--api", "http://127.0.0.1:1/v1"])
        }
        #expect(throws: CommandLineUsageError("--ws and --client-key go with --api URL", command: "chat")) {
            try BotCommand.parse(["chat", "--as", "alice", "--client-key", "ck"])
        }
    }

    @Test func helpDescribesChat() async throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        let output = CapturedLines()
        let commandLine = BotCommandLine(kinds: [], programName: "example-bots")
        #expect(await commandLine.execute(["help", "chat"], in: Self.environment(in: directory, output: output)) == .success)
        #expect(output.text.contains("USAGE: example-bots chat --as USER"))
        #expect(output.text.contains("127.0.0.1:\(EmbeddedSandbox.defaultPort)"))
        #expect(await commandLine.execute(["--help"], in: Self.environment(in: directory, output: output)) == .success)
        #expect(output.text.contains("  chat        Chat live as a person"))
    }

    // MARK: Where chat connects

    @Test func withoutAConfigurationChatFindsRunsSandboxOnItsDefaultPort() throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        let target = try #require(BotCommandLine(kinds: []).chatTarget(
            BotCommand.ChatOptions(username: "alice"), in: Self.environment(in: directory)))
        #expect(target.server.apiBaseURL.absoluteString == "http://127.0.0.1:\(EmbeddedSandbox.defaultPort)/v1")
        #expect(target.server.webSocketURL.absoluteString == "ws://127.0.0.1:\(EmbeddedSandbox.defaultPort)/v1/ws")
        #expect(target.server.clientKey == "ck_sandbox")
        #expect(target.dataDirectory.path == directory.url.appendingPathComponent("data").standardizedFileURL.path)
        #expect(target.isSandbox)
    }

    @Test func aSandboxConfigurationGivesItsDataDirectoryAndTheGivenPort() throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        try directory.write(#"{"server": "sandbox", "dataDirectory": "state", "bots": []}"#, to: "bots.json")
        let target = try #require(BotCommandLine(kinds: []).chatTarget(
            BotCommand.ChatOptions(username: "alice", sandboxPort: 9123), in: Self.environment(in: directory)))
        #expect(target.server.apiBaseURL.absoluteString == "http://127.0.0.1:9123/v1")
        #expect(target.dataDirectory.path == directory.url.appendingPathComponent("state").standardizedFileURL.path)
    }

    @Test func aRemoteConfigurationGivesItsServerWithTheClientKeyFromTheEnvironment() throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        try directory.write("""
            {"server": {"apiURL": "https://api.chatter.example/v1", "webSocketURL": "wss://api.chatter.example/v1/ws",
                        "clientKey": {"env": "CHATTER_CLIENT_KEY"}},
             "bots": [{"name": "r", "kind": "reminders", "credentials": {"username": "r_bot", "password": {"env": "UNSET"}},
                       "friendRequests": "everyone"}]}
            """, to: "bots.json")
        let target = try #require(BotCommandLine(kinds: []).chatTarget(
            BotCommand.ChatOptions(username: "ana"),
            in: Self.environment(in: directory, variables: ["CHATTER_CLIENT_KEY": "ck_live"])))
        #expect(target.server == ChatterServerConfiguration(
            apiBaseURL: try #require(URL(string: "https://api.chatter.example/v1")),
            webSocketURL: try #require(URL(string: "wss://api.chatter.example/v1/ws")), clientKey: "ck_live"))
        #expect(!target.isSandbox)
    }

    @Test func anAPIURLGivesTheRealtimeURLBesideIt() throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        let target = try #require(BotCommandLine(kinds: []).chatTarget(
            BotCommand.ChatOptions(username: "ana", apiURL: "https://chat.example/v1", clientKey: "ck_live"),
            in: Self.environment(in: directory)))
        #expect(target.server.webSocketURL.absoluteString == "wss://chat.example/v1/ws")
        #expect(target.server.clientKey == "ck_live")
    }

    @Test func aMissingConfigurationIsAUsageErrorNamingThePath() async throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        let errors = CapturedLines()
        let code = await BotCommandLine(kinds: [], programName: "example-bots").execute(
            ["chat", "--as", "alice", "--config", "nope.json"], in: Self.environment(in: directory, errors: errors))
        #expect(code == .usageError)
        #expect(errors.text.contains("no configuration at \(directory.url.appendingPathComponent("nope.json").path)"))
    }

    @Test func anAccountWithoutAKnownPasswordNeedsOne() async throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        let errors = CapturedLines()
        let code = await BotCommandLine(kinds: [], programName: "example-bots").execute(
            ["chat", "--as", "ana", "--api", "https://chat.example/v1", "--client-key", "ck_live"],
            in: Self.environment(in: directory, errors: errors))
        #expect(code == .usageError)
        #expect(errors.text.contains("chat needs --password for ana, or CHATTER_PASSWORD"))
    }

    // MARK: A session

    /// A sandbox with the test accounts alice and bob (their documented passwords), friends.
    static func withSandbox(_ body: (Sandbox) async throws -> Void) async throws {
        var configuration = SandboxConfiguration(seed: SandboxSeed(
            users: SandboxTestAccount.defaults.map {
                SandboxUserSeed(username: $0.username, password: $0.password, displayName: $0.displayName)
            },
            friendships: [SandboxFriendship("alice", "bob")]))
        configuration.passwordHashIterations = 1_000
        let sandbox = try await Sandbox.start(configuration)
        do {
            try await body(sandbox)
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }

    @Test func aTestAccountChatsWithoutAPasswordAndLeavesWithQuit() async throws {
        try await Self.withSandbox { sandbox in
            let directory = try TemporaryDirectory("ChatCommandLineTests")
            let output = CapturedLines()
            let errors = CapturedLines()
            let code = await BotCommandLine(kinds: [], programName: "example-bots").execute(
                ["chat", "--as", "alice", "--api", sandbox.apiURL.absoluteString],
                in: Self.environment(in: directory, input: ["/friends", "/quit"], output: output, errors: errors))
            #expect(code == .success, "\(errors.text)")
            #expect(output.all.first == "Chatting as alice on \(sandbox.apiURL.absoluteString): /help for the commands, /quit or Ctrl-D to leave.")
            #expect(output.all.contains("Signed in as alice (Alice)."))
            #expect(output.all.contains("  ○ bob (Bob)"))
            #expect(output.all.last == "Bye.")
            #expect(!output.text.contains("\u{1B}["))  // not a terminal: no colour codes
            #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("data/chat/alice.json").path))
        }
    }

    @Test func aRefusedPasswordExitsWith2AndSaysWhatToCheck() async throws {
        try await Self.withSandbox { sandbox in
            let directory = try TemporaryDirectory("ChatCommandLineTests")
            let errors = CapturedLines()
            let code = await BotCommandLine(kinds: [], programName: "example-bots").execute(
                ["chat", "--as", "alice", "--api", sandbox.apiURL.absoluteString],
                in: Self.environment(in: directory, variables: ["CHATTER_PASSWORD": "wrong"], errors: errors))
            #expect(code == .usageError)
            #expect(errors.all == ["example-bots: the server refused the password for \"alice\": check --as and --password"])
        }
    }

    @Test func anUnreachableSandboxSaysToStartRun() async throws {
        let directory = try TemporaryDirectory("ChatCommandLineTests")
        let errors = CapturedLines()
        let code = await BotCommandLine(kinds: [], programName: "example-bots").execute(
            ["chat", "--as", "alice", "--sandbox-port", "9"], in: Self.environment(in: directory, errors: errors))
        #expect(code == .failure)
        #expect(errors.text.contains("start `example-bots run` first"))
    }
}
