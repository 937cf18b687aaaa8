@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Glibc
import TestSupport
import Testing

@Suite("shard options")
struct ShardOptionParsingTests {
    @Test func runTakesAShardAsIndexSlashCount() throws {
        var options = BotCommand.RunOptions()
        options.shard = .shard(try Shard(index: 1, count: 3))
        #expect(try BotCommand.parse(["run", "--shard", "1/3"]) == .run(options))
        #expect(try BotCommand.parse(["run", "--shard=1/3"]) == .run(options))
    }

    @Test func runTakesTheShardFromTheHostNameWithOrWithoutACount() throws {
        var options = BotCommand.RunOptions()
        options.shard = .hostname(count: 4)
        #expect(try BotCommand.parse(["run", "--shard-from-hostname", "--shard-count", "4"]) == .run(options))
        #expect(try BotCommand.parse(["run", "--shard-count=4", "--shard-from-hostname"]) == .run(options))
        options.shard = .hostname(count: nil)
        #expect(try BotCommand.parse(["run", "--shard-from-hostname"]) == .run(options))
    }

    @Test func aBadShardIsAUsageErrorOfRunSayingWhatIsWrong() {
        func error(_ arguments: [String]) -> String? {
            do {
                _ = try BotCommand.parse(arguments)
                return nil
            } catch {
                #expect(error.command == "run")
                return error.message
            }
        }
        #expect(error(["run", "--shard", "3/3"])?.contains("shard index 3 is out of range for 3 shards: it must be from 0 to 2") == true)
        #expect(error(["run", "--shard", "0/0"])?.contains("the shard count must be a whole number from 1") == true)
        #expect(error(["run", "--shard", "two"])?.contains("the shard must be INDEX/COUNT") == true)
        #expect(error(["run", "--shard", "0/2", "--shard-from-hostname"]) == "--shard INDEX/COUNT and --shard-from-hostname exclude each other")
        #expect(error(["run", "--shard-count", "3"]) == "--shard-count goes with --shard-from-hostname")
        #expect(error(["run", "--shard", "0/2", "--shard-count", "3"]) == "--shard-count goes with --shard-from-hostname, not --shard")
        #expect(error(["run", "--shard-from-hostname", "--shard-count", "0"])?.hasPrefix("--shard-count: the shard count") == true)
    }

    @Test func checkTakesAShardCountAndTheCountToCompareWith() throws {
        #expect(try BotCommand.parse(["check", "--shards", "4"]) == .check(configuration: nil, shards: 4))
        #expect(try BotCommand.parse(["check", "--shards=4", "--from", "3"]) == .check(configuration: nil, shards: 4, from: 3))
        #expect(throws: CommandLineUsageError("--from M goes with --shards N: the moves from M to N shards", command: "check")) {
            try BotCommand.parse(["check", "--from", "3"])
        }
        #expect(throws: CommandLineUsageError.self) { try BotCommand.parse(["check", "--shards", "0"]) }
    }
}

@Suite("shard from the environment")
struct ShardSelectionTests {
    /// The shard `run` runs for these options and this environment.
    static func shard(
        _ selection: ShardSelection?, variables: [String: String], systemHostname: () -> String = ShardSelection.systemHostname
    ) throws(CommandLineUsageError) -> Shard? {
        try ShardSelection.layout(selection, variables: variables, systemHostname: systemHostname).shard
    }

    let noHost: () -> String = { "laptop" }

    @Test func theCommandLineWinsOverTheEnvironment() throws {
        let shard = try Shard(index: 1, count: 2)
        #expect(try Self.shard(.shard(shard), variables: ["CHATTERBOTS_SHARD": "0/5"]) == shard)
    }

    @Test func withoutOptionsTheEnvironmentGivesTheShardOrNone() throws {
        #expect(try Self.shard(nil, variables: [:]) == nil)
        #expect(try Self.shard(nil, variables: ["CHATTERBOTS_SHARD": "2/3"]) == Shard(index: 2, count: 3))
        #expect(try Self.shard(nil, variables: ["CHATTERBOTS_SHARD_COUNT": "3", "HOSTNAME": "bots-2"]) == Shard(index: 2, count: 3))
        #expect(try Self.shard(nil, variables: ["CHATTERBOTS_SHARD": ""]) == nil)
    }

    @Test func theHostNameGivesTheIndexWithTheCountOfTheOptionOrTheEnvironment() throws {
        #expect(try Self.shard(.hostname(count: 4), variables: ["HOSTNAME": "bots-3"]) == Shard(index: 3, count: 4))
        #expect(try Self.shard(.hostname(count: nil), variables: ["HOSTNAME": "bots-1", "CHATTERBOTS_SHARD_COUNT": "2"])
            == Shard(index: 1, count: 2))
        #expect(try Self.shard(.hostname(count: 2), variables: [:], systemHostname: { "bots-1" }) == Shard(index: 1, count: 2))
    }

    @Test func aShardWhoseIndexComesFromTheHostNameRunsAloneOnItsHost() throws {
        #expect(try ShardSelection.layout(.hostname(count: 3), variables: ["HOSTNAME": "bots-2"]).isAloneOnHost)
        #expect(try ShardSelection.layout(nil, variables: ["CHATTERBOTS_SHARD_COUNT": "3", "HOSTNAME": "bots-2"]).isAloneOnHost)
        #expect(try !ShardSelection.layout(.shard(Shard(index: 2, count: 3)), variables: [:]).isAloneOnHost)
        #expect(try !ShardSelection.layout(nil, variables: ["CHATTERBOTS_SHARD": "2/3"]).isAloneOnHost)
        #expect(try ShardSelection.layout(nil, variables: [:]) == ShardLayout(shard: nil))
    }

    @Test func aWrongEnvironmentIsAUsageErrorNamingTheVariable() {
        func message(_ selection: ShardSelection?, _ variables: [String: String]) -> String {
            do {
                _ = try Self.shard(selection, variables: variables, systemHostname: noHost)
                return ""
            } catch {
                return error.message
            }
        }
        #expect(message(nil, ["CHATTERBOTS_SHARD": "3/3"]).hasPrefix("CHATTERBOTS_SHARD: shard index 3 is out of range"))
        #expect(message(nil, ["CHATTERBOTS_SHARD_COUNT": "x"]).hasPrefix("CHATTERBOTS_SHARD_COUNT: the shard count"))
        #expect(message(nil, ["CHATTERBOTS_SHARD": "0/3", "CHATTERBOTS_SHARD_COUNT": "3"]).hasPrefix("both CHATTERBOTS_SHARD and"))
        #expect(message(.hostname(count: nil), [:]).contains("give --shard-count N or set CHATTERBOTS_SHARD_COUNT"))
        #expect(message(.hostname(count: 3), [:]).contains(#"the host name "laptop" has no StatefulSet ordinal"#))
        #expect(message(nil, ["CHATTERBOTS_SHARD_COUNT": "2", "HOSTNAME": "bots-2"]).contains("shard index 2 is out of range"))
    }
}

extension CommandHarness {
    /// Runs a command with these environment variables besides the bots' passwords.
    func run(_ arguments: [String], variables: [String: String]) async -> BotCommandLine.ExitCode {
        let environment = CommandEnvironment(
            workingDirectory: directory.url, variables: variables.merging(["GREETING_PASSWORD": "from-the-environment"]) { a, _ in a },
            standardOutput: output, standardError: errors, shutdown: shutdown, watchesSignals: false,
            clock: SystemClock(), makeSession: commandLine.makeSession, restRequestTimeouts: .hangGuard)
        return await commandLine.execute(Self.patient(arguments), in: environment)
    }

    /// The names of the sessions started so far.
    var sessionNames: Set<String> {
        get async {
            var names: Set<String> = []
            for session in sessions.withLock({ $0 }) { names.insert(await session.name) }
            return names
        }
    }
}

@Suite("shards of a run")
struct ShardRunTests {
    static let bots = (0..<9).map { "bot\($0)" }

    /// bots.json of `bots` against a server the stand-in sessions never call.
    static func writeRemoteConfiguration(in harness: CommandHarness, extra: String = "") throws {
        let entries = bots.map { name in
            #"{"name": "\#(name)", "kind": "greeting", "credentials": {"username": "\#(name)_bot", "password": {"env": "GREETING_PASSWORD"}}, "friendRequests": "everyone", "options": {"greeting": "hi"}}"#
        }
        try harness.directory.write(#"""
            {"server": {"apiURL": "http://127.0.0.1:9/v1", "webSocketURL": "ws://127.0.0.1:9/v1/ws", "clientKey": "ck"},
             "dataDirectory": "data", \#(extra) "bots": [\#(entries.joined(separator: ","))]}
            """#, to: "bots.json")
    }

    @Test func aShardRunsOnlyItsBotsAndTheBannerSaysHowManyOfAll() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        let mine = ShardAssignment(count: 3).shards(of: Self.bots)[1]
        let run = Task { await harness.run(["run", "--shard", "1/3"], variables: [:]) }
        try await harness.waitUntilLive(count: mine.count)
        #expect(await harness.sessionNames == Set(mine))
        #expect(harness.output.text.hasPrefix("shard 1/3: \(mine.count) of 9 bots (the others run in the other shards)\n"))
        #expect(harness.output.text.contains("Running \(mine.count) bot"))
        #expect(FileManager.default.fileExists(atPath: harness.directory.url.appendingPathComponent("data/shard-1/in-flight.table").path))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func theShardMayComeFromThePodNameAndTheCountInTheEnvironment() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        let mine = ShardAssignment(count: 3).shards(of: Self.bots)[2]
        let run = Task { await harness.run(["run"], variables: ["CHATTERBOTS_SHARD_COUNT": "3", "HOSTNAME": "bots-2"]) }
        try await harness.waitUntilLive(count: mine.count)
        #expect(await harness.sessionNames == Set(mine))
        #expect(harness.output.text.hasPrefix("shard 2/3: "))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// A StatefulSet's pods each have their own network: shard 2 serves on the port its probes and Service name.
    @Test func aShardFromThePodNameServesHTTPOnTheConfiguredPort() async throws {
        let harness = try CommandHarness()
        let port = try FreePort.take()
        try Self.writeRemoteConfiguration(in: harness, extra: #""httpPort": \#(port),"#)
        let mine = ShardAssignment(count: 3).shards(of: Self.bots)[2]
        let run = Task { await harness.run(["run", "--shard-from-hostname", "--shard-count", "3"], variables: ["HOSTNAME": "bots-2"]) }
        try await harness.waitUntilLive(count: mine.count)
        let controls = ControlFile.all(in: harness.directory.url.appendingPathComponent("data"))
        #expect(controls.map(\.1.httpPort) == [port])
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func aPreviousShardCountBeyondTheMostShardsIsRefusedWithTheRange() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        let code = await harness.run(["run", "--shard", "0/2"], variables: ["CHATTERBOTS_PREVIOUS_SHARD_COUNT": "5000000000"])
        #expect(code == .usageError)
        #expect(harness.errors.text.contains("CHATTERBOTS_PREVIOUS_SHARD_COUNT must be a shard count (a whole number from 1 to 100000)"))
        #expect(await harness.sessionNames.isEmpty)
    }

    /// The count is what the next start compares with: a run that failed to start must leave it as it was.
    @Test func aRunThatCannotStartRecordsNoShardCount() async throws {
        let harness = try CommandHarness()
        let taken = try SilentListener(port: try FreePort.take())
        try Self.writeRemoteConfiguration(in: harness, extra: #""httpPort": \#(taken.port),"#)

        #expect(await harness.run(["run", "--shard", "0/7"], variables: [:]) == .failure)
        let record = harness.directory.url.appendingPathComponent("data/shard-count.json")
        #expect(!FileManager.default.fileExists(atPath: record.path), "\(harness.errors.text)")
        withExtendedLifetime(taken) {}
    }

    @Test func aRunningShardRecordsItsCountAndTheFleet() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        let mine = ShardAssignment(count: 3).shards(of: Self.bots)[1]
        let run = Task { await harness.run(["run", "--shard", "1/3"], variables: [:]) }
        try await harness.waitUntilLive(count: mine.count)
        let recorded = ShardCountGuard.read(in: harness.directory.url.appendingPathComponent("data"))
        #expect(recorded == ShardCountGuard(previousCount: 3, previousBots: Set(Self.bots)))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// A bot added by a reload has its store in its shard: at the next change of the count it has moved, not new.
    @Test func aReloadRecordsTheBotsItAddedToTheFleet() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness, extra: #""httpPort": 0,"#)
        let mine = ShardAssignment(count: 3).shards(of: Self.bots)[1]
        let run = Task { await harness.run(["run", "--shard", "1/3", "--watch-config", "0"], variables: [:]) }
        try await harness.waitUntilLive(count: mine.count)
        let entries = (Self.bots + ["late"]).map { name in
            #"{"name": "\#(name)", "kind": "greeting", "credentials": {"username": "\#(name)_bot", "password": {"env": "GREETING_PASSWORD"}}, "friendRequests": "everyone", "options": {"greeting": "hi"}}"#
        }
        try harness.directory.write(#"""
            {"server": {"apiURL": "http://127.0.0.1:9/v1", "webSocketURL": "ws://127.0.0.1:9/v1/ws", "clientKey": "ck"},
             "dataDirectory": "data", "httpPort": 0, "bots": [\#(entries.joined(separator: ","))]}
            """#, to: "bots.json")
        #expect(await harness.run(["reload"], variables: [:]) == .success, "\(harness.errors.text)")
        let recorded = ShardCountGuard.read(in: harness.directory.url.appendingPathComponent("data"))
        #expect(recorded.previousBots == Set(Self.bots + ["late"]))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func aShardWithoutBotsWaitsToBeStoppedAndEndsWithExit0() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        let empty = try #require((2...20).first { ShardAssignment(count: $0).shards(of: Self.bots).contains { $0.isEmpty } })
        let index = try #require(ShardAssignment(count: empty).shards(of: Self.bots).firstIndex { $0.isEmpty })
        let run = Task { await harness.run(["run", "--shard", "\(index)/\(empty)"], variables: [:]) }
        try await harness.waitUntil("the shard to wait") { harness.errors.text.contains("runs none of the configured bots") }
        #expect(harness.output.text.hasPrefix("shard \(index)/\(empty): 0 of 9 bots"))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func aShardOutOfRangeInTheEnvironmentStopsTheRunWithExit2BeforeAnythingStarts() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        #expect(await harness.run(["run"], variables: ["CHATTERBOTS_SHARD": "3/3"]) == .usageError)
        #expect(harness.errors.all == [
            "bots: CHATTERBOTS_SHARD: shard index 3 is out of range for 3 shards: it must be from 0 to 2",
            "See 'bots help run' for usage.",
        ])
        #expect(harness.hosts.withLock { $0.isEmpty })
    }

    @Test func theShardsOfOneHostShareTheDataDirectoryWithoutFightingOverIt() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        let runs = (0..<3).map { index in Task { await harness.run(["run", "--shard", "\(index)/3"], variables: [:]) } }
        try await harness.waitUntilLive(count: Self.bots.count)
        #expect(harness.sessions.withLock { $0.count } == Self.bots.count)
        #expect(await harness.sessionNames == Set(Self.bots))
        let dataDirectories = Set(harness.hosts.withLock { $0.map(\.dataDirectory) })
        #expect(dataDirectories == [harness.directory.url.appendingPathComponent("data", isDirectory: true).standardizedFileURL])
        harness.shutdown.request()
        for run in runs { #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success) }
    }

    @Test func shardsOtherThanZeroUseTheSandboxShardZeroEmbedsWithEveryBotsAccount() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: Self.bots)
        let port = try FreePort.take()
        let shards = ShardAssignment(count: 2).shards(of: Self.bots)
        // Shard 1 first: it waits for shard 0's sandbox.
        let second = Task { await harness.run(["run", "--shard", "1/2", "--sandbox-port", "\(port)"], variables: [:]) }
        try await harness.waitUntil("shard 1 to wait for the sandbox") { harness.errors.text.contains("waiting for shard 0") }
        #expect(harness.hosts.withLock { $0.isEmpty })
        let first = Task { await harness.run(["run", "--shard", "0/2", "--sandbox-port", "\(port)"], variables: [:]) }
        try await harness.waitUntilLive(count: Self.bots.count)
        let servers = Set(harness.hosts.withLock { $0.map(\.server.apiBaseURL.absoluteString) })
        #expect(servers == ["http://127.0.0.1:\(port)/v1"])
        #expect(harness.output.text.contains("Chatter sandbox: the one shard 0 serves at http://127.0.0.1:\(port)/v1"))

        // Shard 0's sandbox has the accounts of shard 1's bots too.
        let host = try #require(harness.hosts.withLock { $0.first })
        for bot in shards[1] {
            let client = ChatterRESTClient(configuration: host.server, requestTimeouts: .hangGuard)
            let session = try await client.login(
                username: "\(bot)_bot", password: "password-\(bot)", deviceId: nil, device: DeviceDescription(name: "t", platform: "t"))
            #expect(session.user.username == "\(bot)_bot")
        }
        harness.shutdown.request()
        #expect(try await value(of: second, within: .hangGuard, "shard 1 to end") == .success)
        #expect(try await value(of: first, within: .hangGuard, "shard 0 to end") == .success)
    }

    @Test func sharedSandboxNeedsAKnownPort() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: Self.bots)
        #expect(await harness.run(["run", "--shard", "0/2", "--sandbox-port", "0"], variables: [:]) == .usageError)
        #expect(harness.errors.text.contains("give every shard the same --sandbox-port N (not 0)"))
    }

    @Test func checkPrintsEachShardsBotsAndTheMovesFromTheOldCount() async throws {
        let harness = try CommandHarness()
        try Self.writeRemoteConfiguration(in: harness)
        #expect(await harness.run(["check", "--shards", "3", "--from", "2"], variables: [:]) == .success)
        let text = harness.output.text
        let shards = ShardAssignment(count: 3).shards(of: Self.bots)
        for (index, names) in shards.enumerated() {
            #expect(text.contains("  shard \(index)/3: \(names.count) bot\(names.count == 1 ? "" : "s"): \(names.joined(separator: ", "))"))
        }
        let moves = ShardAssignment(count: 3).moves(from: ShardAssignment(count: 2), of: Self.bots)
        #expect(!moves.isEmpty)
        #expect(text.contains("From 2 to 3 shards: \(moves.count) of 9 bots move:"))
        for move in moves { #expect(text.contains("  \(move.bot)  shard \(move.from) -> shard 2")) }
    }

    @Test func theHelpOfRunAndCheckNamesTheShardOptionsAndVariables() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run(["help", "run"], variables: [:]) == .success)
        #expect(await harness.run(["help", "check"], variables: [:]) == .success)
        let text = harness.output.text
        for words in ["--shard INDEX/COUNT", "--shard-from-hostname", "--shard-count N", "$CHATTERBOTS_SHARD", "$CHATTERBOTS_SHARD_COUNT",
            "--shards N", "--from M"] {
            #expect(text.contains(words), "\(words)")
        }
    }
}
