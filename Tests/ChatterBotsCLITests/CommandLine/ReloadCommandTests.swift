@testable import ChatterBotsCLI
@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// `reload` in this process, against a `run` with the embedded sandbox and stand-in sessions.
@Suite("reload command")
struct ReloadCommandTests {
    @Test func reloadStartsAnAddedBotWithItsSandboxAccountAndStopsARemovedOne() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "greeter"], extra: #""httpPort": 0,"#)
        // The file is not watched: the reload command, not the watcher, must find the change.
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntilLive(count: 2)
        let host = try #require(harness.hosts.withLock { $0.first })
        // Made in the configuration's order.
        let (echo, greeter) = harness.sessions.withLock { ($0[0], $0[1]) }
        let names = [await echo.status.name, await greeter.status.name]
        #expect(names == ["echo", "greeter"])

        try harness.writeConfiguration(bots: ["echo", "late"], extra: #""httpPort": 0,"#)
        #expect(await harness.run("reload") == .success)
        #expect(harness.output.text.contains("reloaded: configuration generation 2; started late; stopped greeter; restarted none; 1 unchanged"),
                "\(harness.output.text) \(harness.errors.text)")
        #expect(await greeter.shutdownDeadlines == [.hangGuard], "the run's shutdown timeout, set by the harness")
        #expect(await echo.shutdownDeadlines.isEmpty)
        try await harness.waitUntil("late to be live") {
            guard let late = harness.sessions.withLock({ $0.count == 3 ? $0[2] : nil }) else { return false }
            let status = await late.status
            return status.name == "late" && status.state == .live
        }
        // The embedded sandbox made the new bot's account, a friend of the test accounts.
        let alice = ChatterRESTClient(configuration: host.server, requestTimeouts: .hangGuard)
        _ = try await alice.login(
            username: "alice", password: "alice-sandbox", deviceId: nil, device: DeviceDescription(name: "t", platform: "t"))
        #expect(Set(try await alice.friends().map(\.user.username)).contains("late_bot"))

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// A reload is how an operator brings back a bot that stopped on its own (here its sign-in was refused), once
    /// the cause is fixed, without restarting the others.
    @Test func reloadStartsAgainABotThatStoppedOnItsOwnAndLeavesTheRunningOnesAlone() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "badbot"], extra: #""httpPort": 0,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntil("echo live and badbot stopped") {
            let sessions = harness.sessions.withLock { $0 }
            guard sessions.count == 2 else { return false }
            let (first, second) = (await sessions[0].status.state, await sessions[1].status.state)
            return first == .live && second == .stopped
        }
        let echo = harness.sessions.withLock { $0[0] }

        #expect(await harness.run("reload") == .success)
        #expect(harness.output.text.contains("reloaded: configuration generation 1; started none; stopped none; restarted badbot; 1 unchanged"),
                "\(harness.output.text) \(harness.errors.text)")
        try await harness.waitUntil("a new badbot session to run") {
            guard let again = harness.sessions.withLock({ $0.count == 3 ? $0[2] : nil }) else { return false }
            return await again.status.name == "badbot"
        }
        #expect(await echo.shutdownDeadlines.isEmpty)
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// A reload makes no bot itself: a bot whose options its kind refuses stops in its own session, and the running
    /// bots go on.
    @Test func aBotAddedByAReloadWhoseOptionsItsKindRefusesStopsAloneAndTheRunningBotsGoOn() async throws {
        let harness = try CommandHarness(realSessions: true)
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntil("echo live") { harness.errors.lines(containing: "bot=echo", "msg=live").count >= 1 }

        try harness.directory.write(#"""
            {"server": "sandbox", "dataDirectory": "data", "httpPort": 0, "bots": [
              {"name": "echo", "kind": "greeting", "credentials": {"username": "echo_bot", "password": "password-echo"},
               "friendRequests": "everyone", "options": {"greeting": "hi"}},
              {"name": "late", "kind": "greeting", "credentials": {"username": "late_bot", "password": "password-late"},
               "friendRequests": "everyone", "options": {"greeting": 3}}]}
            """#, to: "bots.json")
        #expect(await harness.run("reload") == .success)
        try await harness.waitUntil("late to stop") { harness.errors.lines(containing: "bot=late", "bot stopped").count >= 1 }
        #expect(harness.errors.lines(containing: "bot=late", "options.greeting: must be a string").count >= 1)
        #expect(harness.errors.lines(containing: "bot=echo", "bot stopped").isEmpty)
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// A running process's environment is the one it started with: a bot added with a password variable set since
    /// is refused, saying so, and the same bot with its password in a file (a mounted Secret) starts.
    @Test func aBotAddedByAReloadTakesItsPasswordFromAFileNotFromAVariableSetSinceTheStart() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntilLive(count: 1)
        func add(password: String) throws {
            try harness.directory.write(#"""
                {"server": "sandbox", "dataDirectory": "data", "httpPort": 0, "bots": [
                  {"name": "echo", "kind": "greeting", "credentials": {"username": "echo_bot", "password": "password-echo"},
                   "friendRequests": "everyone", "options": {"greeting": "hi"}},
                  {"name": "late", "kind": "greeting", "credentials": {"username": "late_bot", "password": \#(password)},
                   "friendRequests": "everyone", "options": {"greeting": "hi"}}]}
                """#, to: "bots.json")
        }

        try add(password: #"{"env": "LATE_PASSWORD"}"#)
        #expect(await harness.run("reload") == .failure)
        let said = harness.output.text + harness.errors.text
        #expect(said.contains(#"bot "late", credentials.password: environment variable LATE_PASSWORD is not set (the environment is the one the process started with: set it and restart the process, or use {"file": PATH}, which every reload reads again)"#), "\(said)")
        #expect(harness.sessions.withLock { $0.count } == 1, "no session for late")

        try harness.directory.write("password-late\n", to: "late-password")
        try add(password: #"{"file": "late-password"}"#)
        #expect(await harness.run("reload") == .success)
        #expect(harness.output.text.contains("started late"), "\(harness.output.text) \(harness.errors.text)")
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func aRefusedReloadShowsAsTheLastReloadInHealthzAndMetrics() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntilLive(count: 1)
        let health = try healthURL(harness)

        try harness.directory.write(#"""
            {"server": "sandbox", "dataDirectory": "data", "httpPort": 0, "bots": [
              {"name": "echo", "kind": "parrot", "credentials": {"username": "echo_bot", "password": "password-echo"},
               "friendRequests": "everyone"}]}
            """#, to: "bots.json")
        #expect(await harness.run("reload") == .failure)
        let answer = try await HTTPFetch.get(health.appendingPathComponent("healthz"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        let configuration = try #require(json["configuration"] as? [String: Any], "\(answer.body)")
        #expect(configuration["generation"] as? Int == 1)
        let last = try #require(configuration["lastReload"] as? [String: Any], "\(answer.body)")
        #expect(last["applied"] as? Bool == false)
        #expect((last["errors"] as? [String])?.contains { $0.contains("unknown kind \"parrot\"") } == true, "\(answer.body)")
        let metrics = try await HTTPFetch.get(health.appendingPathComponent("metrics")).body
        let lines = metrics.split(separator: "\n").map(String.init)
        #expect(lines.contains("chatterbots_configuration_generation 1"), "\(metrics)")
        #expect(lines.contains("chatterbots_configuration_last_reload_successful 0"), "\(metrics)")

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func afterAReloadTheConsoleChatOffersTheAddedBotAndNoLongerTheRemovedOne() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo", "greeter"], extra: #""httpPort": 0, "console": true,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntilLive(count: 2)
        let console = try consoleURL(harness)
        #expect(try await chatBots(console) == ["echo_bot", "greeter_bot"])

        try harness.writeConfiguration(bots: ["echo", "late"], extra: #""httpPort": 0, "console": true,"#)
        #expect(await harness.run("reload") == .success, "\(harness.errors.text)")
        #expect(try await chatBots(console) == ["echo_bot", "late_bot"])

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func aPictureFromTheConsoleReachesABotAddedByAReload() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0, "console": true,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0", "--watch-config", "0") }
        try await harness.waitUntilLive(count: 1)
        let console = try consoleURL(harness)

        try harness.writeConfiguration(bots: ["echo", "late"], extra: #""httpPort": 0, "console": true,"#)
        #expect(await harness.run("reload") == .success, "\(harness.errors.text)")
        var request = URLRequest(url: console.appendingPathComponent("chat/picture"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // As the console's page sends it: a request that changes something names the console's origin.
        request.setValue("http://\(console.host ?? ""):\(console.port ?? 0)", forHTTPHeaderField: "Origin")
        let picture = Data([0x89, 0x50, 0x4E, 0x47]).base64EncodedString()
        request.httpBody = Data(#"{"as": "alice", "to": "late_bot", "contentType": "image/png", "data": "\#(picture)"}"#.utf8)
        let sent = try await HTTPFetch.send(request)
        #expect(sent.status == 204, "\(sent.body)")

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    /// The root of the process's HTTP port, read from the banner's `Health:` line.
    private func healthURL(_ harness: CommandHarness) throws -> URL {
        let line = try #require(harness.output.lines(containing: "Health: ").first)
        let healthz = try #require(line.split(separator: " ").dropFirst().first)
        return try #require(URL(string: String(healthz.dropLast("healthz".count))))
    }

    /// The console's address, as the run printed it (`Console: http://…/console/`).
    private func consoleURL(_ harness: CommandHarness) throws -> URL {
        let line = try #require(harness.output.lines(containing: "Console: ").first)
        return try #require(URL(string: String(line.dropFirst("Console: ".count))))
    }

    /// The usernames `GET /console/chat` offers to chat with.
    private func chatBots(_ console: URL) async throws -> [String] {
        let answer = try await HTTPFetch.get(console.appendingPathComponent("chat"))
        let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let bots = try #require(object?["bots"] as? [[String: String]], "\(answer.status) \(answer.body)")
        return bots.compactMap { $0["username"] }
    }

    /// A reload may wait for a queued one, and each stops its bots within the shutdown timeout (plus a grace):
    /// `reload` waits more than twice the timeout the process recorded in its control file.
    @Test func reloadWaitsMoreThanTwiceTheShutdownTimeoutTheProcessRecorded() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"], extra: #""httpPort": 0,"#)
        let run = Task {
            await harness.run("run", "--sandbox-port", "0", "--watch-config", "0", "--shutdown-timeout", "25")
        }
        try await harness.waitUntilLive(count: 1)
        let control = try #require(ControlFile.read(in: harness.directory.url.appendingPathComponent("data")))
        #expect(control.shutdownTimeout == .seconds(25))
        #expect(ControlClient.reloadTimeout(shutdownTimeout: .seconds(25)) > .seconds(50))
        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
    }

    @Test func aReloadNotAnsweredInTimeIsSaidToBeStillRunningWithWhereToCheck() {
        let said = BotCommandLine.reloadStillRunning(pid: 42, after: .seconds(54))
        #expect(said.contains("within 54 s: it is still running"))
        #expect(said.contains("check /healthz's configuration generation"))
    }

    @Test func reloadWithoutARunningProcessSaysWhatToStartAndExitsWith1() async throws {
        let harness = try CommandHarness()
        try harness.writeConfiguration(bots: ["echo"])
        #expect(await harness.run("reload") == .failure)
        #expect(harness.errors.text.contains("no running process of this configuration was found"), "\(harness.errors.text)")
    }

    @Test func reloadIsParsedWithItsConfigurationAndHasHelp() async throws {
        #expect(try BotCommand.parse(["reload"]) == .reload(configuration: nil))
        #expect(try BotCommand.parse(["reload", "--config", "fleet.json"]) == .reload(configuration: "fleet.json"))
        #expect(throws: CommandLineUsageError.self) { try BotCommand.parse(["reload", "now"]) }
        let harness = try CommandHarness()
        #expect(await harness.run("help", "reload") == .success)
        #expect(harness.output.text.contains("USAGE: bots reload [--config FILE]"))
    }
}
