@testable import ChatterBotsCLI
@testable import BotRuntime
import ChatterBots
import Foundation
import Synchronization
import TestSupport
import Testing
import WebSocket
import BotRuntimeTestSupport

/// Runs commands in this process with captured output, a shutdown requested by the test instead of a signal, and
/// scripted sessions: a bot named `bad…` has its credentials rejected, `revoked…` is revoked, `crashing…` is
/// stopped as crashing, `slow…` takes 5 s to shut down, `stuck…` does not finish its shutdown until told
/// (`finishShutdown()`), `never…` stays connecting until told (`goLive()`); every other bot runs until shut down.
final class CommandHarness: Sendable {
    let directory: TemporaryDirectory
    /// Signalled by every line written and every state change of a stand-in session.
    let changes = ChangeSignal()
    let output: CapturedLines
    let errors: CapturedLines
    let shutdown = ShutdownRequest()
    let hosts = Mutex<[BotHost]>([])
    let sessions = Mutex<[StandInSession]>([])

    /// Whether the commands run real `BotSession`s (the command line's default) instead of stand-ins.
    let realSessions: Bool

    init(realSessions: Bool = false) throws {
        directory = try TemporaryDirectory("BotCommandLineTests")
        output = CapturedLines(changes: changes)
        errors = CapturedLines(changes: changes)
        self.realSessions = realSessions
    }

    var commandLine: BotCommandLine {
        if realSessions { return BotCommandLine(kinds: [GreetingBot.kind], programName: "bots") }
        return BotCommandLine(kinds: [GreetingBot.kind], programName: "bots") { [self] member, host in
            self.hosts.withLock { $0.append(host) }
            let name = member.configuration.name
            let bot: StandInSession
            if name.hasPrefix("bad") {
                bot = StandInSession(name, .stop(.credentialsRejected(StopMessages.invalidCredentials), after: .zero), changes: changes)
            } else if name.hasPrefix("revoked") {
                bot = StandInSession(name, .stop(.revoked("signed out elsewhere"), after: .zero), changes: changes)
            } else if name.hasPrefix("crashing") {
                bot = StandInSession(name, .stop(.crashing("onStart crashed the process 2 times"), after: .zero), changes: changes)
            } else if name.hasPrefix("slow") {
                bot = StandInSession(name, workOnShutdown: .seconds(5), changes: changes)
            } else if name.hasPrefix("stuck") {
                bot = StandInSession(name, shutdownWaitsToBeTold: true, changes: changes)
            } else if name.hasPrefix("never") {
                bot = StandInSession(name, .liveWhenTold, changes: changes)
            } else {
                bot = StandInSession(name, changes: changes)
            }
            self.sessions.withLock { $0.append(bot) }
            return bot
        }
    }

    /// Waits until `count` sessions exist and every one is live (the supervisor runs them).
    func waitUntilLive(count: Int) async throws {
        try await waitUntil("\(count) sessions live") {
            let sessions = self.sessions.withLock { $0 }
            guard sessions.count == count else { return false }
            for session in sessions where await session.status.state != .live { return false }
            return true
        }
    }

    /// Returns once `condition` holds, checked after each line written and each state change of a stand-in.
    /// Waits for `condition`, signalled by each line the command writes. The bound is generous: a real sandbox
    /// and real sessions start in under a second alone, but the suite shares two cores with everything else.
    func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        try await changes.wait(until: condition, what, timeout: .hangGuard)
    }

    func run(_ arguments: String...) async -> BotCommandLine.ExitCode {
        let environment = CommandEnvironment(
            workingDirectory: directory.url, variables: ["GREETING_PASSWORD": "from-the-environment"],
            standardOutput: output, standardError: errors, shutdown: shutdown, watchesSignals: false,
            clock: SystemClock(), makeSession: commandLine.makeSession, restRequestTimeouts: .hangGuard)
        return await commandLine.execute(Self.patient(arguments), in: environment)
    }

    /// `arguments`, with a `run` that does not set its shutdown timeout given the hang guard: the bots' stops, at
    /// the end and in reloads, run in real time, and a test not about their timeout must not fail on a stall.
    static func patient(_ arguments: [String]) -> [String] {
        guard arguments.first == "run", !arguments.contains(where: { $0.hasPrefix("--shutdown-timeout") }) else {
            return arguments
        }
        return arguments + ["--shutdown-timeout", Duration.hangGuardSeconds]
    }

    /// Writes `bots.json` with these bots (`name` → extra fields) against `server`.
    func writeConfiguration(bots: [String], server: String = #""sandbox""#, extra: String = "") throws {
        let entries = bots.map { name in
            """
            {"name": "\(name)", "kind": "greeting", "credentials": {"username": "\(name)_bot", "password": "password-\(name)"},
             "friendRequests": "everyone", "options": {"greeting": "hi"}}
            """
        }
        try directory.write(
            #"{"server": \#(server), "dataDirectory": "data", \#(extra) "bots": [\#(entries.joined(separator: ","))]}"#,
            to: "bots.json")
    }
}

@Suite("command line")
struct BotCommandLineTests {
    @Test func helpPrintsTheCommandsTheExitCodesAndTheRegisteredKinds() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run("--help") == .success)
        let text = harness.output.text
        #expect(text.contains("USAGE: bots <command> [options]"))
        for command in ["run", "check", "sandbox"] { #expect(text.contains("  \(command) ")) }
        #expect(text.contains("2  usage or configuration error"))
        #expect(text.contains("Registered bot kinds: greeting"))
        #expect(harness.errors.all.isEmpty)
    }

    @Test func aBadCommandLineExitsWith2AndPointsToTheHelp() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run("run", "--prot", "1") == .usageError)
        #expect(harness.errors.all == ["bots: unknown option --prot for run", "See 'bots help run' for usage."])
        #expect(harness.output.all.isEmpty)
    }

    @Test func checkPrintsWhatWouldRunAndExitsWith0() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "greeter"], extra: #""httpPort": 9099,"#)
        #expect(await harness.run("check") == .success)
        let text = harness.output.text
        #expect(text.contains("bots.json is valid: 2 bots."))
        #expect(text.contains("Server: the embedded sandbox"))
        #expect(text.contains("  echo     kind greeting, account echo_bot, friend requests: everyone"))
        #expect(text.contains("/healthz and /metrics on port 9099"))
        #expect(!text.contains("password-echo"))
        #expect(harness.hosts.withLock { $0.isEmpty })
    }

    @Test func checkSaysHowLongReadyzWaitsForTheBotsOfTheStart() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 9099, "readinessTimeoutSeconds": 600,"#)
        #expect(await harness.run("check") == .success)
        #expect(harness.output.text.contains("Readiness: /readyz waits at most 600 s for the bots of the start to be live."))
        let unbounded = try CommandHarness()
        try unbounded.writeConfiguration(bots: ["echo"], extra: #""httpPort": 9099,"#)
        #expect(await unbounded.run("check") == .success)
        #expect(unbounded.output.text.contains("Readiness: /readyz waits for every bot of the start to be live"))
    }

    @Test func checkWarnsThatABindOffLoopbackNeedsAControlTokenThisEnvironmentLacks() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 9099, "httpBind": "0.0.0.0","#)
        #expect(await harness.run("check") == .success)
        #expect(harness.output.text.contains("Warning: httpBind: is 0.0.0.0, off loopback, so run refuses to serve httpPort "
            + "unless CHATTERBOTS_CONTROL_TOKEN (or CHATTERBOTS_CONTROL_TOKEN_FILE) is set where it runs"))
    }

    @Test func checkDoesNotWarnOfABindOffLoopbackWhenTheControlTokenIsSet() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 9099, "httpBind": "0.0.0.0","#)
        #expect(await harness.run(["check"], variables: ["CHATTERBOTS_CONTROL_TOKEN": "s3cret"]) == .success)
        #expect(harness.output.text.contains("is valid"))
        #expect(!harness.output.text.contains("Warning:"))
    }

    @Test func checkWarnsOfAControlTokenFileThatCannotBeRead() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 9099,"#)
        let missing = harness.directory.url.appendingPathComponent("no-token").path
        #expect(await harness.run(["check"], variables: ["CHATTERBOTS_CONTROL_TOKEN_FILE": missing]) == .success)
        #expect(harness.output.text.contains("Warning: CHATTERBOTS_CONTROL_TOKEN_FILE names \(missing), which cannot be read"))
    }

    @Test func checkWithoutAConfigurationFileExitsWith2AndSaysWhereItLooked() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run("check") == .usageError)
        #expect(harness.errors.text.contains("no configuration at \(harness.directory.url.appendingPathComponent("bots.json").path)"))
    }

    @Test func aConfigurationWithProblemsExitsWith2ListingEachWithItsBotAndField() async throws {
        let harness = try CommandHarness()
        try harness.directory.write(#"""
            {"server": {"apiURL": "https://api.example", "webSocketURL": "wss://api.example/ws", "clientKey": "ck"},
             "bots": [
              {"name": "a", "kind": "greeting", "credentials": {"username": "a_bot", "password": "plain-text"}, "friendRequests": "everyone"},
              {"name": "b", "kind": "reminder", "credentials": {"username": "b_bot", "password": {"env": "UNSET_PASSWORD"}}, "friendRequests": "everyone"}
             ]}
            """#, to: "custom.json")
        #expect(await harness.run("run", "--config", "custom.json") == .usageError)
        let text = harness.errors.text
        #expect(text.contains(#"bot "a", credentials.password: is plain text"#))
        #expect(text.contains(#"bot "b", kind: unknown kind "reminder"; registered kinds: greeting"#))
        #expect(text.contains(#"bot "b", credentials.password: environment variable UNSET_PASSWORD is not set"#))
        #expect(!text.contains("plain-text"))
        #expect(harness.hosts.withLock { $0.isEmpty })
    }

    @Test func checkAppliesTheSandboxsAccountRulesNamingTheBotAndTheField() async throws {
        let harness = try CommandHarness()
        try harness.directory.write(#"""
            {"server": "sandbox", "bots": [
              {"name": "greeter", "kind": "greeting", "credentials": {"username": "greet-bot", "password": "pw123"},
               "friendRequests": "everyone", "options": {"greeting": "hi"}}]}
            """#, to: "bots.json")
        #expect(await harness.run("check") == .usageError)
        let text = harness.errors.text
        #expect(text.contains(#"bot "greeter", credentials.username: "greet-bot" is refused by the embedded sandbox: "#
            + #"A username has 3 to 32 characters: ASCII letters, digits, "_" and ".""#))
        #expect(text.contains(#"bot "greeter", credentials.password: is refused by the embedded sandbox: "#
            + "A password has 8 to 256 characters."))
        #expect(!text.contains("pw123"))
        #expect(harness.output.all.isEmpty)
    }

    @Test func checkReportsTheSandboxsAccountRulesWithTheKindsProblemsAtOnce() async throws {
        let harness = try CommandHarness()
        try harness.directory.write(#"""
            {"server": "sandbox", "bots": [
              {"name": "greeter", "kind": "greeting", "credentials": {"username": "greet-bot", "password": "password-g"},
               "friendRequests": "everyone", "options": {"greeting": 3}}]}
            """#, to: "bots.json")
        #expect(await harness.run("check") == .usageError)
        let text = harness.errors.text
        #expect(text.contains(#"bot "greeter", options.greeting"#))
        #expect(text.contains(#"bot "greeter", credentials.username: "greet-bot" is refused by the embedded sandbox"#))
    }

    @Test func optionsAKindRefusesStopThatBotAndARunOfNoOtherBotEndsWithExit2() async throws {
        let harness = try CommandHarness(realSessions: true)
        try harness.directory.write(#"""
            {"server": "sandbox", "dataDirectory": "data", "bots": [
              {"name": "a", "kind": "greeting", "credentials": {"username": "a_bot", "password": "password-a"},
               "friendRequests": "everyone", "options": {"greeting": 3}}]}
            """#, to: "bots.json")
        #expect(await harness.run("run", "--sandbox-port", "0") == .usageError)
        #expect(harness.errors.lines(
            containing: "level=error", "bot=a", #"bot \"a\", options.greeting: must be a string (kind \"greeting\")"#).count >= 1,
            "\(harness.errors.text)")
    }

    @Test func aBotWhoseOptionsItsKindRefusesStopsAloneAndTheOtherBotsRun() async throws {
        let harness = try CommandHarness(realSessions: true)
        try harness.directory.write(#"""
            {"server": "sandbox", "dataDirectory": "data", "bots": [
              {"name": "a", "kind": "greeting", "credentials": {"username": "a_bot", "password": "password-a"},
               "friendRequests": "everyone", "options": {"greeting": 3}},
              {"name": "b", "kind": "greeting", "credentials": {"username": "b_bot", "password": "password-b"},
               "friendRequests": "everyone", "options": {"greeting": "hi"}}]}
            """#, to: "bots.json")
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("b live and a stopped") {
            harness.errors.lines(containing: "bot=b", "connected").count >= 1
                && harness.errors.lines(containing: "bot=a", "bot stopped").count >= 1
        }
        #expect(harness.errors.lines(containing: "bot=a", "options.greeting: must be a string").count >= 1)
        #expect(harness.errors.lines(containing: "bot=a", "connected").isEmpty, "a never signed in")
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func theSandboxsConsoleOffLoopbackWithoutAControlTokenStopsTheStartWithExit2() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run("sandbox", "--port", "0", "--console-port", "0", "--console-bind", "0.0.0.0") == .usageError)
        #expect(harness.errors.text.contains("CHATTERBOTS_CONTROL_TOKEN"))
        #expect(!harness.output.text.contains("Console:"))
    }

    @Test func theSandboxPrintsItsConsolesAddressAndServesTheChatThere() async throws {
        let harness = try CommandHarness()
        let sandbox = Task { await harness.run("sandbox", "--port", "0", "--console-port", "0") }
        try await harness.waitUntil("the console's address") { harness.output.text.contains("Ctrl-C stops it.") }
        let line = try #require(harness.output.text.split(separator: "\n").first { $0.hasPrefix("Console: http://127.0.0.1:") })
        let address = try #require(URL(string: String(line.dropFirst("Console: ".count)) + "chat"))
        let port = try #require(address.port)
        let offer = try await HTTPClient(configuration: .patient).send(
            HTTPRequest(method: .get, target: "/console/chat", headers: ["Host": "127.0.0.1:\(port)"]),
            to: HTTPOrigin(isSecure: false, host: "127.0.0.1", port: port), timeout: .hangGuard)
        #expect(offer.status == .ok)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(offer.body)) as? [String: Any])
        #expect(json["accounts"] as? [String] == ["alice", "bob"])
        #expect((json["bots"] as? [[String: String]])?.compactMap { $0["username"] } == ["alice", "bob"])
        harness.shutdown.request()
        #expect(try await value(of: sandbox, within: .hangGuard, "the command to end") == .success)
    }

    @Test func runStartsTheSandboxAndEverySessionAndAShutdownRequestEndsItWithExit0() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "greeter"])
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("the run to start") { harness.output.text.contains("Ctrl-C stops gracefully") }
        try await harness.waitUntilLive(count: 2)

        let text = harness.output.text
        #expect(text.contains("Running 2 bots from \(harness.directory.url.appendingPathComponent("bots.json").path): "
            + "echo (greeting, account echo_bot), greeter (greeting, account greeter_bot)"))
        #expect(text.contains("Test accounts, friends with every bot: alice (password alice-sandbox), bob (password bob-sandbox)"))
        let host = try #require(harness.hosts.withLock { $0.first })
        #expect(host.dataDirectory == harness.directory.url.appendingPathComponent("data", isDirectory: true).standardizedFileURL)
        #expect(text.contains(host.server.apiBaseURL.absoluteString))

        let alice = ChatterRESTClient(configuration: host.server, requestTimeouts: .hangGuard)
        _ = try await alice.login(
            username: "alice", password: "alice-sandbox", deviceId: nil, device: DeviceDescription(name: "t", platform: "t"))
        #expect(Set(try await alice.friends().map(\.user.username)) == ["bob", "echo_bot", "greeter_bot"])

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
        let sessions = harness.sessions.withLock { $0 }
        // The run's shutdown timeout (the harness's hang guard) reaches every session.
        for session in sessions { #expect(await session.shutdownDeadlines == [.hangGuard]) }
        #expect(harness.errors.lines(containing: "level=info", "all bots stopped").count == 1)
    }

    @Test func aBotWhosePasswordIsRefusedStopsAloneAndTheRunGoesOn() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "bad"])
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("bad to stop") { harness.errors.text.contains("bot=bad") }
        #expect(harness.errors.lines(containing: "level=error", "bot=bad", "check the bot's username and password").count == 1)
        #expect(!harness.errors.text.contains("password-bad"))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func whenEveryBotStopsWithAConfigurationErrorTheRunExitsWith2() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["bad1", "bad2"])
        #expect(await harness.run("run", "--sandbox-port", "0") == .usageError)
    }

    /// A restart under systemd's Restart=on-failure cannot bring back a bot whose handlers keep crashing the
    /// process: exit 2, which the unit does not restart, rather than starting and stopping every 5 s.
    @Test func whenEveryBotStopsOnItsConfigurationOrAsCrashingTheRunExitsWith2() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["crashing1", "bad1"])
        #expect(await harness.run("run", "--sandbox-port", "0") == .usageError)
    }

    @Test func whenEveryBotStopsForAnotherReasonTheRunExitsWith1() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["bad1", "revoked1"])
        #expect(await harness.run("run", "--sandbox-port", "0") == .failure)
    }

    @Test func theHealthEndpointRunsOnTheConfiguredPort() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("the health endpoint to start") { harness.output.text.contains("Health: ") }
        let line = try #require(harness.output.lines(containing: "Health: ").first)
        let url = try #require(line.split(separator: " ").dropFirst().first.flatMap { URL(string: String($0)) })
        #expect(url.path == "/healthz")
        try await harness.waitUntilLive(count: 1)
        #expect(try await HTTPFetch.get(url).status == 200)
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// The process's clock is real here: the bound is the shortest the file takes, and the test waits for its log.
    @Test func runStopsWaitingForABotOfTheStartThatNeverGetsLiveAtTheReadinessTimeout() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "never"], extra: #""httpPort": 0, "readinessTimeoutSeconds": 1,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("the health endpoint to start") { harness.output.text.contains("Health: ") }
        let line = try #require(harness.output.lines(containing: "Health: ").first)
        let health = try #require(line.split(separator: " ").dropFirst().first.flatMap { URL(string: String($0)) })
        let readyz = try #require(URL(string: "/readyz", relativeTo: health)?.absoluteURL)
        try await harness.waitUntil("the end of the wait to be logged") {
            !harness.errors.lines(containing: "level=warning", "/readyz no longer waits for", "never").isEmpty
        }
        let answer = try await HTTPFetch.get(readyz)
        #expect(answer.status == 200)
        // The echo bot is live within the second on an idle machine, not necessarily on a loaded one.
        #expect(answer.body.hasPrefix("ready\nnot live yet, not waited for: "), "\(answer.body)")
        #expect(answer.body.contains("never"), "\(answer.body)")
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func theBannersAddressesAreOnTheBoundAddressAndAnswer() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0, "httpBind": "127.0.0.2", "console": true,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("the health endpoint to start") { harness.output.text.contains("Console: ") }
        let line = try #require(harness.output.lines(containing: "Health: ").first)
        let url = try #require(line.split(separator: " ").dropFirst().first.flatMap { URL(string: String($0)) })
        #expect(url.host == "127.0.0.2")
        #expect(try harness.output.lines(containing: "Console: ").first?.hasPrefix("Console: http://127.0.0.2:\(#require(url.port))/") == true)
        // `/healthz` answers 200 once every bot is connected.
        try await harness.waitUntilLive(count: 1)
        #expect(try await HTTPFetch.get(url).status == 200)
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test(arguments: [
        ("::1", "http://[::1]:8080/healthz"), ("[::1]", "http://[::1]:8080/healthz"), ("::", "http://[::1]:8080/healthz"),
        ("0.0.0.0", "http://127.0.0.1:8080/healthz"), ("192.168.1.5", "http://192.168.1.5:8080/healthz"),
        ("localhost", "http://localhost:8080/healthz"),
    ])
    func theBannerReachesABindOnItsOwnAddressAWildcardOnLoopbackAndBracketsIPv6(bind: String, printed: String) {
        #expect(BotCommandLine.httpURL(bind: bind, port: 8080, path: "/healthz") == printed)
    }

    @Test func anAddressNotOnThisMachineStopsTheRunAdvisingToChangeHttpBindNotHttpPort() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0, "httpBind": "192.0.2.1","#)
        #expect(await harness.run(["run", "--sandbox-port", "0"], variables: ["CHATTERBOTS_CONTROL_TOKEN": "s3cret"]) == .failure)
        let text = harness.errors.text
        #expect(text.contains("cannot listen on 192.0.2.1"))
        #expect(text.contains("change httpBind in the configuration to an address of this machine"))
        #expect(!text.contains("httpPort"))
    }

    @Test func aBindNameThatDoesNotResolveIsAdvisedToChangeHttpBind() {
        let advice = BotCommandLine.listenAdvice(
            for: .invalidHost("nowhere.invalid", reason: "Name or service not known"), bindFromOption: true)
        #expect(advice.hasPrefix("; change --http-bind to an address of this machine"))
    }

    @Test func aShutdownThatOverrunsItsTimeoutEndsTheRunWithExit1() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["slow"])
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--shutdown-timeout", "0.1") }
        try await harness.waitUntilLive(count: 1)
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .failure, "\(harness.errors.text)")
        #expect(harness.errors.lines(containing: "level=critical", "the shutdown took longer than its timeout").count == 1)
    }

    /// A reload still waiting for a bot whose stop overruns does not keep the process from exiting once the shutdown
    /// gave up on the bots.
    @Test func aShutdownDuringAReloadStoppingABotThatOverrunsStillEndsTheRunWithExit1() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "stuck"], extra: #""httpPort": 0,"#)
        let run = Task {
            await harness.run("run", "--sandbox-port", "0", "--shutdown-timeout", "0.1", "--watch-config", "0")
        }
        try await harness.waitUntilLive(count: 2)
        let stuck = harness.sessions.withLock { $0[1] }
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0,"#)
        let reload = Task { await harness.run("reload") }
        try await harness.waitUntil("stuck to be stopping") { await stuck.status.state == .stopping }

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .failure, "\(harness.errors.text)")
        #expect(harness.errors.lines(containing: "level=critical", "the shutdown took longer than its timeout").count == 1)
        await stuck.finishShutdown()
        _ = try await value(of: reload, within: .hangGuard, "the reload command to end")
    }

    @Test func theConfiguredBotsRunAsSessionsOnTheEmbeddedSandboxAndAnswerAPersonThroughSay() async throws {
        let harness = try CommandHarness(realSessions: true)
        try harness.writeConfiguration(bots: ["echo"])
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("echo live") { harness.errors.text.contains("bot=echo msg=live") }
        let talk = try #require(harness.output.lines(containing: "Talk to the bots").first)
        let server = try #require(talk.split(separator: " ").drop { $0 != "--server" }.dropFirst().first.map(String.init))

        #expect(await harness.run("say", "--as", "alice", "--to", "echo_bot", "--server", server, "good", "morning") == .success)
        #expect(harness.output.all.suffix(2) == ["alice: good morning", "echo_bot: hi, good morning"])
        let store = harness.directory.url.appendingPathComponent("data/echo.sqlite")
        #expect(FileManager.default.fileExists(atPath: store.path))
        #expect(!harness.errors.text.contains("password-echo"))

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
        #expect(harness.errors.lines(containing: "bot=echo", "msg=\"bot stopped\"").count == 1)
    }

    @Test func sayWithoutARunningServerExitsWith1AndSaysWhatToStart() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run("say", "--as", "alice", "--to", "echo_bot", "--server", "http://127.0.0.1:1/v1", "hi") == .failure)
        #expect(harness.errors.text.contains("cannot sign in as alice on http://127.0.0.1:1/v1"))
        #expect(harness.errors.text.contains("is `run` or `sandbox` running"))
    }

    @Test func theSandboxCommandServesTheSeededAccountsUntilAShutdownRequest() async throws {
        let harness = try CommandHarness()
        let run = Task { await harness.run("sandbox", "--port", "0", "--data", "sandbox-data") }
        try await harness.waitUntil("the sandbox to start") { harness.output.text.contains("Ctrl-C stops it.") }
        let line = try #require(harness.output.lines(containing: "Chatter sandbox listening on ").first)
        let api = try #require(URL(string: String(line.dropFirst("Chatter sandbox listening on ".count))))
        #expect(harness.output.text.contains("Client key ck_sandbox"))
        let server = ChatterServerConfiguration(
            apiBaseURL: api, webSocketURL: api.appendingPathComponent("ws"), clientKey: "ck_sandbox")
        let bob = ChatterRESTClient(configuration: server, requestTimeouts: .hangGuard)
        _ = try await bob.login(
            username: "bob", password: "bob-sandbox", deviceId: nil, device: DeviceDescription(name: "t", platform: "t"))
        #expect(try await bob.friends().map(\.user.username) == ["alice"])
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
        let database = EmbeddedSandbox.databaseURL(in: harness.directory.url.appendingPathComponent("sandbox-data"))
        #expect(FileManager.default.fileExists(atPath: database.path))
    }
}
