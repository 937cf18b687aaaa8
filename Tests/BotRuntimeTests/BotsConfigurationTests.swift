import ChatterBots
@testable import BotRuntime
import BotRuntimeTestSupport
import Foundation
import TestSupport
import Testing

@Suite("bots.json")
struct BotsConfigurationTests {
    let base = URL(fileURLWithPath: "/srv/bots", isDirectory: true)

    func load(_ json: String, environment: [String: String] = [:], knownKinds: Set<String>? = nil)
        throws(ConfigurationError) -> BotsConfiguration
    {
        try BotsConfiguration(json: Data(json.utf8), environment: environment, baseDirectory: base, knownKinds: knownKinds)
    }

    /// The issues loading `json` reports, as the operator reads them.
    func problems(_ json: String, environment: [String: String] = [:], knownKinds: Set<String>? = nil) -> [String] {
        do {
            _ = try load(json, environment: environment, knownKinds: knownKinds)
            Issue.record("loaded without problems")
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    /// A sandbox file with one bot whose fields can be replaced.
    func sandbox(bot: String = #""name": "echo", "kind": "auto-responder", "credentials": {"username": "echo_bot", "password": "pw"}, "friendRequests": "everyone""#) -> String {
        #"{"server": "sandbox", "bots": [{\#(bot)}]}"#
    }

    func remote(bots: String) -> String {
        #"""
        {"server": {"apiURL": "https://api.example.com/v1", "webSocketURL": "wss://api.example.com/v1/ws",
                    "clientKey": {"env": "CK"}},
         "bots": [\#(bots)]}
        """#
    }

    // MARK: Decoding

    @Test func aSandboxFileLoadsWithDefaults() throws {
        let configuration = try load(sandbox())
        #expect(configuration.server == .sandbox)
        #expect(configuration.dataDirectory == URL(fileURLWithPath: "/srv/bots/data", isDirectory: true))
        #expect(configuration.logLevel == .info)
        #expect(configuration.httpPort == nil)
        #expect(configuration.warnings.isEmpty)
        #expect(configuration.bots == [BotConfiguration(
            name: "echo", kind: "auto-responder", credentials: BotCredentials(username: "echo_bot", password: "pw"),
            friendRequests: .everyone)])
    }

    @Test func theConsoleIsOffUnlessTheFileTurnsItOn() throws {
        #expect(try load(sandbox()).console == false)
        let on = sandbox().replacingOccurrences(of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "httpPort": 0, "console": true,"#)
        let configuration = try load(on)
        #expect(configuration.console)
        #expect(configuration.warnings.isEmpty)
    }

    @Test func aConsoleWithoutAnHTTPPortIsWarnedAboutAndANonBooleanRefused() throws {
        let noPort = try load(sandbox().replacingOccurrences(of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "console": true,"#))
        #expect(noPort.warnings.map(\.description).contains { $0.contains("httpPort is not set") })
        let wrong = problems(sandbox().replacingOccurrences(of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "console": "yes","#))
        #expect(wrong.contains { $0.contains("console") && $0.contains("must be true or false") })
    }

    @Test func aRemoteServerAndEveryTopLevelFieldLoad() throws {
        let json = #"""
        {"server": {"apiURL": "https://api.example.com/v1", "webSocketURL": "wss://api.example.com/v1/ws", "clientKey": "ck-123"},
         "dataDirectory": "/var/lib/bots", "logLevel": "debug", "httpPort": 9090,
         "bots": [{"name": "r", "kind": "reminder", "credentials": {"username": "u", "password": {"env": "P"}},
                   "friendRequests": {"allowlist": ["Ben_Tan"]}}]}
        """#
        let configuration = try load(json, environment: ["P": "secret"])
        #expect(configuration.server == .remote(
            apiURL: URL(string: "https://api.example.com/v1")!, webSocketURL: URL(string: "wss://api.example.com/v1/ws")!,
            clientKey: "ck-123"))
        #expect(configuration.dataDirectory.path == "/var/lib/bots")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.httpPort == 9090)
        #expect(configuration.bots.first?.friendRequests == .allowlist(["Ben_Tan"]))
    }

    @Test func theExampleInTheDocumentationLoadsAndTheSchemaIsJSON() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs")
        let markdown = try String(contentsOf: docs.appendingPathComponent("configuration.md"), encoding: .utf8)
        let example = try #require(markdown.components(separatedBy: "```json\n").dropFirst().first?
            .components(separatedBy: "```").first)
        let configuration = try load(example, environment: [
            "CHATTER_CLIENT_KEY": "ck", "REMINDER_BOT_PASSWORD": "a", "GREETER_BOT_PASSWORD": "b",
        ], knownKinds: ["reminders", "friend-greeter"])
        #expect(configuration.bots.map(\.name) == ["reminder", "greeter"])
        let schema = try Data(contentsOf: docs.appendingPathComponent("bots.schema.json"))
        #expect(try JSONSerialization.jsonObject(with: schema) is [String: Any])
    }

    @Test func aRelativeDataDirectoryIsRelativeToTheFile() throws {
        let configuration = try load(#"{"server": "sandbox", "dataDirectory": "state/../var", "bots": [{"name": "a", "kind": "k", "credentials": {"username": "u", "password": "p"}, "friendRequests": "nobody"}]}"#)
        #expect(configuration.dataDirectory.path == "/srv/bots/var")
    }

    @Test func writingAFileAndReadingItBackGivesTheSameFile() throws {
        let file = BotsFile(
            server: .remote(apiURL: "https://a.example/v1", webSocketURL: "wss://a.example/v1/ws", clientKey: .environment("CK")),
            dataDirectory: "d", logLevel: .warning, httpPort: 0,
            bots: [BotsFile.Bot(
                name: "x", kind: "reminder",
                credentials: .init(username: "u", password: .environment("PW")),
                friendRequests: .allowlist(["a", "b"]), options: try BotOptions(encoding: ["timeZone": "UTC"]))])
        let data = try JSONEncoder().encode(file)
        #expect(try JSONDecoder().decode(BotsFile.self, from: data) == file)
    }

    // MARK: Send pacing

    @Test func withoutAnySettingABotIsPacedAtTheDefault() throws {
        let configuration = try load(sandbox())
        #expect(configuration.bots.first?.sendPacing == .conservative)
        #expect(SendPacer.Configuration.conservative == SendPacer.Configuration(sendsPerSecond: 2, burst: 10))
    }

    @Test func withoutAQuarantineSettingWorkIsSetAsideAfterTwoCrashesAndFiveAnHourStopABot() throws {
        #expect(try load(sandbox()).quarantine == QuarantineSettings(attempts: 2, maxPerHour: 5))
    }

    @Test func theQuarantineSettingLoadsAndWritesBack() throws {
        let json = #"{"server": "sandbox", "quarantine": {"attempts": 3, "maxPerHour": 0}, "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}]}"#
        #expect(try load(json).quarantine == QuarantineSettings(attempts: 3, maxPerHour: 0))
        let file = try BotsFile(json: Data(json.utf8))
        #expect(try BotsFile(json: JSONEncoder().encode(file)).quarantine == QuarantineSettings(attempts: 3, maxPerHour: 0))
    }

    @Test func aQuarantineSettingOutOfRangeIsAnErrorNamingTheField() {
        let json = #"{"server": "sandbox", "quarantine": {"attempts": 0, "maxPerHour": 2.5, "limit": 1}, "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}]}"#
        let found = problems(json)
        #expect(found.contains { $0.contains("quarantine.attempts") && $0.contains("from 1 to 100") })
        #expect(found.contains { $0.contains("quarantine.maxPerHour") && $0.contains("whole number") })
        #expect(found.contains { $0.contains("quarantine.limit") && $0.contains("unknown field") })
    }

    // MARK: Readiness timeout

    @Test func withoutAReadinessTimeoutReadyzWaitsForEveryBotOfTheStart() throws {
        #expect(try load(sandbox()).readinessTimeout == nil)
    }

    @Test func theReadinessTimeoutIsReadInSecondsAndWrittenBack() throws {
        let json = sandbox().replacingOccurrences(
            of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "httpPort": 0, "readinessTimeoutSeconds": 600,"#)
        let configuration = try load(json)
        #expect(configuration.readinessTimeout == .seconds(600))
        #expect(configuration.warnings.isEmpty)
        let file = try BotsFile(json: Data(json.utf8))
        #expect(try BotsFile(json: JSONEncoder().encode(file)).readinessTimeoutSeconds == 600)
    }

    @Test(arguments: ["0", "-5", "1.5", "86401", #""300""#, #""5m""#, "null"])
    func aReadinessTimeoutThatIsNotAWholeNumberOfSecondsFromOneToADayIsAnErrorNamingTheKey(value: String) {
        let found = problems(sandbox().replacingOccurrences(
            of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "readinessTimeoutSeconds": \#(value),"#))
        #expect(found == ["readinessTimeoutSeconds: must be a whole number from 1 to 86400 (seconds /readyz waits at most "
            + "for the bots of the start to be live); leave it out to wait until each has been"])
    }

    @Test func aReadinessTimeoutWithoutAnHTTPPortIsWarnedAbout() throws {
        let configuration = try load(sandbox().replacingOccurrences(
            of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "readinessTimeoutSeconds": 60,"#))
        #expect(configuration.warnings.map(\.description).contains {
            $0.contains("readinessTimeoutSeconds") && $0.contains("httpPort is not")
        })
    }

    @Test func theFilesPacingAppliesToEveryBotWithoutItsOwn() throws {
        let json = #"""
        {"server": "sandbox", "sendPacing": {"perSecond": 20, "burst": 50},
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"},
                  {"name": "b", "kind": "k", "credentials": {"username": "b", "password": "p"}, "friendRequests": "nobody",
                   "sendPacing": "off"}]}
        """#
        let configuration = try load(json)
        #expect(configuration.bots.map(\.sendPacing) == [SendPacer.Configuration(sendsPerSecond: 20, burst: 50), nil])
    }

    @Test func aBotsOwnPacingWinsAndAMissingFieldTakesTheDefault() throws {
        let json = #"""
        {"server": "sandbox", "sendPacing": "off",
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody",
                   "sendPacing": {"perSecond": 0.5}},
                  {"name": "b", "kind": "k", "credentials": {"username": "b", "password": "p"}, "friendRequests": "nobody",
                   "sendPacing": {"burst": 3}}]}
        """#
        let configuration = try load(json)
        #expect(configuration.bots.map(\.sendPacing) == [
            SendPacer.Configuration(sendsPerSecond: 0.5, burst: 10), SendPacer.Configuration(sendsPerSecond: 2, burst: 3),
        ])
    }

    @Test func aBotsPacingFieldsGoOverTheFilesOnes() throws {
        let json = #"""
        {"server": "sandbox", "sendPacing": {"perSecond": 5},
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody",
                   "sendPacing": {"burst": 20}}]}
        """#
        #expect(try load(json).bots.first?.sendPacing == SendPacer.Configuration(sendsPerSecond: 5, burst: 20))
    }

    @Test func aBadPacingIsAnErrorNamingTheFieldAndLosesNothingElse() {
        let json = #"""
        {"server": "sandbox", "sendPacing": "fast",
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody",
                   "sendPacing": {"perSecond": 0, "burst": 2.5, "window": 1}}]}
        """#
        #expect(problems(json) == [
            #"sendPacing: must be "off" or an object, found a string; use "off" or {"perSecond": 2, "burst": 10}"#,
            #"bot "a", sendPacing.window: unknown field; expected one of: perSecond, burst"#,
            #"bot "a", sendPacing.perSecond: must be a number from 0.001 (one send every 1000 seconds) up (sends per second, "#
                + #"sustained); to send without pacing, write "sendPacing": "off""#,
            #"bot "a", sendPacing.burst: must be a whole number from 1 to 1000000 (sends back to back)"#,
        ])
    }

    @Test func aPaceSlowerThanOneSendInAThousandSecondsIsRefusedPointingToOff() {
        let found = problems(#"{"server": "sandbox", "sendPacing": {"perSecond": 0.0001}, "bots": [{"name": "a", "kind": "k", "#
            + #""credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}]}"#)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("sendPacing.perSecond: must be a number from 0.001") == true)
        #expect(found.first?.hasSuffix(#"to send without pacing, write "sendPacing": "off""#) == true)
    }

    @Test func oneSendInAThousandSecondsIsTheSlowestPaceAccepted() throws {
        let json = #"{"server": "sandbox", "sendPacing": {"perSecond": 0.001}, "bots": [{"name": "a", "kind": "k", "#
            + #""credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}]}"#
        #expect(try load(json).bots.first?.sendPacing?.sendsPerSecond == 0.001)
    }

    @Test func pacingIsWrittenBackAsRead() throws {
        let file = BotsFile(
            server: .sandbox, sendPacing: .paced(perSecond: 5, burst: nil),
            bots: [BotsFile.Bot(
                name: "x", kind: "k", credentials: .init(username: "u", password: "p"), friendRequests: .nobody,
                sendPacing: .off)])
        let data = try JSONEncoder().encode(file)
        #expect(try JSONDecoder().decode(BotsFile.self, from: data) == file)
    }

    // MARK: Receipts

    @Test func withoutAnyReceiptsSettingABotLeavesThemToTheRuntime() throws {
        #expect(try load(sandbox()).bots.first?.receipts == nil)
        #expect(ReceiptPolicy() == ReceiptPolicy(sendsDelivered: true, sendsRead: true))
    }

    @Test func theFilesReceiptsApplyToEveryBotWithoutItsOwn() throws {
        let json = #"""
        {"server": "sandbox", "receipts": "read",
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"},
                  {"name": "b", "kind": "k", "credentials": {"username": "b", "password": "p"}, "friendRequests": "nobody",
                   "receipts": "none"},
                  {"name": "c", "kind": "k", "credentials": {"username": "c", "password": "p"}, "friendRequests": "nobody",
                   "receipts": "delivered and read"},
                  {"name": "d", "kind": "k", "credentials": {"username": "d", "password": "p"}, "friendRequests": "nobody",
                   "receipts": "delivered"}]}
        """#
        #expect(try load(json).bots.map(\.receipts) == [
            ReceiptPolicy(sendsDelivered: false, sendsRead: true), ReceiptPolicy.none,
            ReceiptPolicy(sendsDelivered: true, sendsRead: true), ReceiptPolicy(sendsDelivered: true, sendsRead: false),
        ])
    }

    @Test func anUnknownReceiptsSettingIsAnErrorNamingTheFieldAndTheChoices() {
        let json = #"""
        {"server": "sandbox", "receipts": true,
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody",
                   "receipts": "both"}]}
        """#
        let choices = #""delivered and read", "read", "delivered", "none""#
        #expect(problems(json) == [
            "receipts: must be one of \(choices); found a boolean",
            #"bot "a", receipts: must be one of "# + choices + #"; found "both""#,
        ])
    }

    @Test func receiptsAreWrittenBackAsRead() throws {
        let file = BotsFile(
            server: .sandbox, receipts: ReceiptPolicy.none,
            bots: [BotsFile.Bot(
                name: "x", kind: "k", credentials: .init(username: "u", password: "p"), friendRequests: .nobody,
                receipts: ReceiptPolicy(sendsDelivered: false, sendsRead: true))])
        let data = try JSONEncoder().encode(file)
        #expect(try JSONDecoder().decode(BotsFile.self, from: data) == file)
    }

    // MARK: Secrets from the environment

    @Test func environmentReferencesAreReadFromTheInjectedEnvironment() throws {
        let configuration = try load(
            remote(bots: #"{"name": "r", "kind": "reminder", "credentials": {"username": {"env": "USER_R"}, "password": {"env": "REMINDER_BOT_PASSWORD"}}, "friendRequests": "everyone"}"#),
            environment: ["CK": "client-key", "USER_R": "reminder_bot", "REMINDER_BOT_PASSWORD": "s3cret"])
        #expect(configuration.bots.first?.credentials == BotCredentials(username: "reminder_bot", password: "s3cret"))
        guard case .remote(_, _, let clientKey) = configuration.server else { Issue.record("not remote"); return }
        #expect(clientKey == "client-key")
    }

    @Test func aMissingEnvironmentVariableNamesTheBotTheFieldAndTheVariable() {
        let found = problems(
            remote(bots: #"{"name": "reminder", "kind": "reminder", "credentials": {"username": "u", "password": {"env": "REMINDER_BOT_PASSWORD"}}, "friendRequests": "everyone"}"#),
            environment: ["CK": "k"])
        #expect(found == [#"bot "reminder", credentials.password: environment variable REMINDER_BOT_PASSWORD is not set (the environment is the one the process started with: set it and restart the process, or use {"file": PATH}, which every reload reads again)"#])
    }

    @Test func aVariableSetButEmptyIsAnError() {
        let found = problems(sandbox(bot: #""name": "e", "kind": "k", "credentials": {"username": "u", "password": {"env": "PW"}}, "friendRequests": "everyone""#),
                             environment: ["PW": ""])
        #expect(found == [#"bot "e", credentials.password: is empty (environment variable PW is set but empty; the environment is the one the process started with: set it and restart the process, or use {"file": PATH}, which every reload reads again)"#])
    }

    @Test func environmentReferencesInsideOptionsAreResolved() throws {
        struct WeatherOptions: Decodable, Equatable { var apiKey: String; var cities: [String]; var retries: Int }
        let configuration = try load(
            sandbox(bot: #""name": "w", "kind": "weather", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone", "options": {"apiKey": {"env": "WEATHER_KEY"}, "cities": ["Toronto"], "retries": 3}"#),
            environment: ["WEATHER_KEY": "abc"])
        let options = try #require(configuration.bots.first?.options)
        #expect(try options.decode(as: WeatherOptions.self) == WeatherOptions(apiKey: "abc", cities: ["Toronto"], retries: 3))
    }

    @Test func valuesReadFromTheEnvironmentInsideOptionsAreSecretsTheLogMasks() async throws {
        let configuration = try load(
            sandbox(bot: #""name": "w", "kind": "weather", "credentials": {"username": "u", "password": "password-w"}, "friendRequests": "everyone", "options": {"apiKey": {"env": "WEATHER_KEY"}, "city": "Toronto"}"#),
            environment: ["WEATHER_KEY": "key-0123456789"])
        let bot = try #require(configuration.bots.first)
        #expect(bot.secrets == ["password-w", "key-0123456789"])
        let lines = CapturedLines()
        let log = LogSink(minimumLevel: .info, output: lines)
        bot.secrets.forEach(log.registerSecret)
        log.log(.info, "calling the weather service with key-0123456789 for Toronto")
        await log.flush()
        #expect(lines.text.contains("[REDACTED] for Toronto"))
        #expect(!lines.text.contains("key-0123456789"))
    }

    @Test func aMissingVariableInsideOptionsNamesItsPath() {
        let found = problems(sandbox(bot: #""name": "w", "kind": "weather", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone", "options": {"service": {"key": {"env": "WEATHER_KEY"}}}"#))
        #expect(found == [#"bot "w", options.service.key: environment variable WEATHER_KEY is not set (the environment is the one the process started with: set it and restart the process, or use {"file": PATH}, which every reload reads again)"#])
    }

    @Test func anEmptyVariableInsideOptionsIsAnErrorNamingItsPath() {
        let found = problems(
            sandbox(bot: #""name": "w", "kind": "weather", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone", "options": {"service": {"key": {"env": "WEATHER_KEY"}}}"#),
            environment: ["WEATHER_KEY": ""])
        #expect(found == [#"bot "w", options.service.key: is empty (environment variable WEATHER_KEY is set but empty; the environment is the one the process started with: set it and restart the process, or use {"file": PATH}, which every reload reads again)"#])
    }

    // MARK: Validation

    @Test func aPlainTextPasswordIsRefusedWithARealServer() {
        let found = problems(
            remote(bots: #"{"name": "r", "kind": "reminder", "credentials": {"username": "u", "password": "hunter2"}, "friendRequests": "everyone"}"#),
            environment: ["CK": "k"])
        #expect(found == [#"bot "r", credentials.password: is plain text, which is only accepted with the sandbox server; give it as {"env": "VARIABLE"} and set that variable, or as {"file": "/run/secrets/NAME"}"#])
    }

    @Test func duplicateNamesAreRefused() {
        let bot = #"{"name": "twin", "kind": "k", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone"}"#
        let other = #"{"name": "twin", "kind": "k", "credentials": {"username": "v", "password": "p"}, "friendRequests": "everyone"}"#
        let found = problems(#"{"server": "sandbox", "bots": [\#(bot), \#(other)]}"#)
        #expect(found == [#"bot "twin", name: is also the name of bots[0]; names must be unique because each bot has its own data file"#])
    }

    @Test func twoBotsOfOneAccountAreRefused() {
        let first = #"{"name": "echo", "kind": "k", "credentials": {"username": "shared", "password": "p"}, "friendRequests": "everyone"}"#
        let second = #"{"name": "greeter", "kind": "k", "credentials": {"username": "Shared", "password": "p"}, "friendRequests": "everyone"}"#
        let found = problems(#"{"server": "sandbox", "bots": [\#(first), \#(second)]}"#)
        #expect(found == [#"bot "greeter", credentials.username: "Shared" is also the account of bots[0]; each bot needs an account of its own, or both would receive and answer every message"#])
    }

    @Test(arguments: ["../etc", ".hidden", "", "has space", String(repeating: "n", count: 65)])
    func aNameThatCannotNameAFileIsRefused(name: String) {
        let found = problems(sandbox(bot: #""name": "\#(name)", "kind": "k", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone""#))
        #expect(found.count == 1)
        #expect(found.first?.contains("name: must be 1 to 64 letters, digits") == true)
    }

    @Test func anEmptyKindIsRefused() {
        let found = problems(sandbox(bot: #""name": "e", "kind": " ", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone""#))
        #expect(found == [#"bot "e", kind: is empty; name the bot kind to run"#])
    }

    @Test func anUnregisteredKindIsRefusedWhenTheKindsAreKnown() {
        let found = problems(sandbox(), knownKinds: ["reminder", "friend-greeter"])
        #expect(found == [#"bot "echo", kind: unknown kind "auto-responder"; registered kinds: friend-greeter, reminder"#])
    }

    @Test func aWrongURLSchemeIsRefused() {
        let json = #"""
        {"server": {"apiURL": "ftp://api.example.com", "webSocketURL": "https://api.example.com/ws", "clientKey": "k"},
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "u", "password": {"env": "P"}}, "friendRequests": "nobody"}]}
        """#
        #expect(problems(json, environment: ["P": "p"]) == [
            #"server.apiURL: must be a https:// or http:// URL with a host, found "ftp://api.example.com""#,
            #"server.webSocketURL: must be a wss:// or ws:// URL with a host, found "https://api.example.com/ws""#,
        ])
    }

    @Test func anUnencryptedURLToAnotherHostLoadsWithAWarning() throws {
        let json = #"""
        {"server": {"apiURL": "http://chat.example.com/v1", "webSocketURL": "ws://127.0.0.1:8080/v1/ws", "clientKey": "k"},
         "bots": [{"name": "a", "kind": "k", "credentials": {"username": "u", "password": {"env": "P"}}, "friendRequests": "nobody"}]}
        """#
        let configuration = try load(json, environment: ["P": "p"])
        #expect(configuration.warnings.map(\.description) == [
            "server.apiURL: http:// to chat.example.com sends tokens and messages unencrypted; use https://"
        ])
    }

    @Test func anUnknownFriendRequestPolicyIsRefused() {
        let found = problems(sandbox(bot: #""name": "e", "kind": "k", "credentials": {"username": "u", "password": "p"}, "friendRequests": "friends-of-friends""#))
        #expect(found == [#"bot "e", friendRequests: unknown policy "friends-of-friends"; use "everyone", "nobody" or {"allowlist": ["username", …]}"#])
    }

    @Test func aMissingFriendRequestPolicyIsRefused() {
        let found = problems(sandbox(bot: #""name": "e", "kind": "k", "credentials": {"username": "u", "password": "p"}"#))
        #expect(found == [#"bot "e", friendRequests: is missing; use "everyone", "nobody" or {"allowlist": ["username", …]}"#])
    }

    @Test func anUnknownFieldIsRefusedSoTyposAreNotSilentlyIgnored() {
        let found = problems(sandbox(bot: #""name": "e", "kind": "k", "credentials": {"username": "u", "password": "p"}, "friendRequests": "nobody", "frendRequests": "everyone""#))
        #expect(found == [#"bot "e", frendRequests: unknown field; expected one of: name, kind, credentials, friendRequests, options, sendPacing, receipts"#])
    }

    @Test func aBotWithoutANameIsNamedByItsPosition() {
        let found = problems(sandbox(bot: #""kind": "k", "credentials": {"username": "u", "password": "p"}, "friendRequests": "nobody""#))
        #expect(found == ["bots[0].name: is missing"])
    }

    @Test func wrongTypesSayWhatWasFound() {
        let found = problems(#"{"server": "sandbox", "httpPort": "80", "logLevel": "loud", "bots": [{"name": "e", "kind": "k", "credentials": {"username": 7, "password": "p"}, "friendRequests": "nobody", "options": []}]}"#)
        #expect(found == [
            "logLevel: must be one of: trace, debug, info, notice, warning, error, critical",
            "httpPort: must be a whole number from 0 to 65535 (0: any free port)",
            #"bot "e", credentials.username: must be a string, {"env": "VARIABLE"} or {"file": "PATH"}, found a number"#,
            #"bot "e", options: must be an object, found an array"#,
        ])
    }

    @Test func anUnknownServerIsRefused() {
        let found = problems(#"{"server": "production", "bots": []}"#)
        #expect(found == [#"server: unknown server "production"; use "sandbox" or {"apiURL": …, "webSocketURL": …, "clientKey": …}"#])
    }

    @Test func anEmptyBotListIsRefused() {
        #expect(problems(#"{"server": "sandbox", "bots": []}"#) == ["bots: is empty; configure at least one bot"])
    }

    @Test func invalidJSONIsReportedNotCrashed() {
        let found = problems(#"{"server": "sandbox", "bots": [}"#)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("the configuration: is not valid JSON") == true)
    }

    // MARK: What JSON readers disagree on

    @Test func aKeyGivenTwiceIsAnErrorNamingTheKeyAndItsLines() {
        let json = """
            {"server": "sandbox",
             "httpPort": 18090,
             "httpPort": 18091,
             "bots": [{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}]}
            """
        #expect(problems(json) == [
            "httpPort: is given twice in one object (lines 2 and 3); keep only the one you mean, since JSON readers "
                + "disagree on which one counts",
        ])
    }

    @Test func aSecondBotsArrayIsAnErrorRatherThanIgnored() {
        let bot = #"{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}"#
        let found = problems(#"{"server": "sandbox", "bots": [\#(bot)], "bots": [\#(bot)]}"#)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("bots: is given twice in one object") == true)
    }

    @Test func aKeyGivenTwiceInsideABotNamesTheBotsPositionAndThePath() {
        let found = problems(sandbox(bot: #""name": "a", "kind": "k", "credentials": {"username": "a", "username": "b", "#
            + #""password": "p"}, "friendRequests": "nobody""#))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("bots[0].credentials.username: is given twice") == true)
    }

    @Test func keysThatDifferOnlyInTheirEscapesAreTheSameKey() {
        let found = problems(sandbox().replacingOccurrences(of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "logLevel": "info", "log\u004cevel": "debug","#))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("logLevel: is given twice") == true)
    }

    @Test func aTrailingCommaInAnObjectIsAnErrorNamingTheObject() {
        let found = problems(sandbox(bot: #""name": "a", "kind": "k", "credentials": {"username": "a", "password": "p",}, "#
            + #""friendRequests": "nobody""#))
        #expect(found == [#"bots[0].credentials: has a comma before its closing } (line 1); remove it: JSON allows none"#])
    }

    @Test func aTrailingCommaInAnArrayIsAnErrorNamingTheArray() {
        let bot = #"{"name": "a", "kind": "k", "credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}"#
        #expect(problems(#"{"server": "sandbox", "bots": [\#(bot),]}"#)
            == [#"bots: has a comma before its closing ] (line 1); remove it: JSON allows none"#])
    }

    @Test func aNumberTooLargeForADoubleIsARangeErrorNamingTheField() {
        let found = problems(sandbox().replacingOccurrences(of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "httpPort": 1e400,"#))
        #expect(found == [#"httpPort: is 1e400, a number too large to read (beyond ±1.8e308); write a number within the field's range"#])
    }

    @Test func aNumberTooCloseToZeroForADoubleIsARangeErrorNamingTheField() {
        let found = problems(#"{"server": "sandbox", "sendPacing": {"perSecond": 1e-400}, "bots": [{"name": "a", "kind": "k", "#
            + #""credentials": {"username": "a", "password": "p"}, "friendRequests": "nobody"}]}"#)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("sendPacing.perSecond: is 1e-400, a number too close to 0 to read") == true)
    }

    @Test func aNumberTooLargeDecodedThroughCodableNamesItsPath() throws {
        let json = Data(sandbox().replacingOccurrences(of: #"{"server": "sandbox","#, with: #"{"server": "sandbox", "httpPort": 1e400,"#).utf8)
        do {
            _ = try JSONDecoder().decode(BotsFile.self, from: json)
            Issue.record("decoded a number beyond a Double's range")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["httpPort"])
            #expect(context.debugDescription.hasPrefix("a number beyond the range of a Double"))
        }
    }

    @Test func bracketsCommasAndQuotesInsideStringsAreNotTakenForStructure() throws {
        let json = sandbox(bot: #""name": "a", "kind": "k", "credentials": {"username": "a", "password": "p,}\\\"],"}, "#
            + #""friendRequests": "nobody", "options": {"reply": "{\"x\": 1,}", "x\"": 1, "x": 2}"#)
        #expect(try load(json).bots.first?.credentials.password == #"p,}\"],"#)
    }

    @Test func nestingTooDeepIsReportedNotCrashed() {
        let depth = 100_000
        let found = problems(#"{"server": "sandbox", "bots": "# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}")
        #expect(found.count == 1)
    }

    @Test func everyProblemOfTheFileIsReportedAtOnce() {
        let bot = #"{"name": "a", "kind": "", "credentials": {"username": "u", "password": "p"}, "friendRequests": "everyone"}"#
        let found = problems(remote(bots: "\(bot), \(bot)"))
        #expect(found.count == 7)  // client key variable, then per bot: kind and plain password, plus the duplicate name and account
    }

    @Test func loadingAFileNamesTheFileInTheError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("bots.json")
        try Data(sandbox(bot: #""name": "e", "kind": "k", "credentials": {"username": "u", "password": {"env": "NOPE"}}, "friendRequests": "nobody""#).utf8).write(to: url)
        #expect(throws: ConfigurationError.self) { try BotsConfiguration.load(contentsOf: url, environment: [:]) }
        do {
            _ = try BotsConfiguration.load(contentsOf: url, environment: [:])
        } catch {
            #expect(error.description == "\(url.path) has 1 problem:\n  - bot \"e\", credentials.password: environment variable NOPE is not set (the environment is the one the process started with: set it and restart the process, or use {\"file\": PATH}, which every reload reads again)")
        }
        let loaded = try BotsConfiguration.load(contentsOf: url, environment: ["NOPE": "yes"])
        #expect(loaded.dataDirectory.path == directory.appendingPathComponent("data").standardizedFileURL.path)
    }

    @Test func aPathThatCannotBeReadAsItIsIsNotOfferedAgain() throws {
        let directory = try TemporaryDirectory("BotsConfigurationTests")
        #expect(!BotsConfiguration.mayReadLater(directory.url.path), "a directory")
        #expect(!BotsConfiguration.mayReadLater(directory.url.appendingPathComponent("missing.json").path))
        let file = try directory.write("{}", to: "bots.json")
        #expect(BotsConfiguration.mayReadLater(file.path), "a file that opens now may read at the next try")
    }

    @Test func aMissingFileIsAClearError() {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/bots.json")
        do {
            _ = try BotsConfiguration.load(contentsOf: url, environment: [:])
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.file == url.path)
            #expect(error.issues.first?.message.hasPrefix("cannot be read") == true)
            #expect(!error.mayReadLater, "a missing file is not offered again by the file watch")
        }
    }

    // MARK: Values

    @Test func anAllowlistComparesUsernamesWithoutRegardToCase() {
        let policy = FriendRequestPolicy.allowlist(["Ben_Tan"])
        #expect(policy.allows(username: "ben_tan"))
        #expect(!policy.allows(username: "ana"))
        #expect(FriendRequestPolicy.everyone.allows(username: "anyone"))
        #expect(!FriendRequestPolicy.nobody.allows(username: "ben_tan"))
    }

    @Test func credentialsNeverPrintThePassword() {
        let credentials = BotCredentials(username: "reminder_bot", password: "s3cret")
        #expect(!"\(credentials)".contains("s3cret"))
        #expect(!String(reflecting: credentials).contains("s3cret"))
    }
}
