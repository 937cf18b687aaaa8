import BotRuntime
import ChatterBots
import Foundation
import Glibc
import TestSupport

/// `CrashTestBots run` in a directory of its own, against its embedded sandbox with the data on disk (so the
/// sandbox dies with the process and comes back with it): writes bots.json, starts the process again after each
/// death, and reads the bots' stores while it is not running.
final class CrashTestBotsFixture: Sendable {
    /// A bot of the configuration: `name`, its account `<name>_bot`, and its `options` as JSON object text.
    struct BotLine: Sendable {
        var name: String
        var options: String

        var username: String { "\(name)_bot" }
    }

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("CrashQuarantineProcessTests")
    }

    /// Writes bots.json: `bots` of kind `poison`, the embedded sandbox, /healthz on a free port, and `quarantine`
    /// (JSON object text) and `sendPacing` (JSON text) when given.
    func configure(_ bots: [BotLine], quarantine: String? = nil, sendPacing: String? = nil) throws {
        let lines = bots.map { bot in
            #"{"name": "\#(bot.name)", "kind": "poison", "friendRequests": "everyone", "credentials": {"username": "\#(bot.username)", "#
                + #""password": "\#(bot.name)-bot-sandbox"}, "options": \#(bot.options)}"#
        }
        try directory.write("""
            {
              "server": "sandbox", "dataDirectory": "data", "httpPort": 0,
              \(quarantine.map { "\"quarantine\": \($0)," } ?? "") \(sendPacing.map { "\"sendPacing\": \($0)," } ?? "")
              "bots": [\(lines.joined(separator: ",\n    "))]
            }
            """, to: "bots.json")
    }

    /// Starts `CrashTestBots run` (its sandbox on a free port) with `arguments` more, moved into `cgroup` right
    /// after it was spawned.
    func launch(_ label: String, arguments: [String] = [], in cgroup: MemoryCgroup? = nil) throws -> CrashTestRun {
        let process = try BotProcess(
            ["run", "--config", "bots.json", "--sandbox-port", "0"] + arguments, in: directory.url, label: label,
            executable: "CrashTestBots")
        if let cgroup {
            do {
                try cgroup.add(process.pid)
            } catch {
                process.send(SIGKILL)
                throw error
            }
        }
        return CrashTestRun(process: process, label: label)
    }

    /// Opens the store of `bot` (the process must not be running), hands it to `body`, and closes it.
    func withStore<Result: Sendable>(of bot: String, _ body: (BotStore) async throws -> Result) async throws -> Result {
        let store = try await BotStore.open(path: directory.url.appendingPathComponent("data/\(bot).sqlite").path)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// Starts the process again and again until a run stays up (`isSteady` holds for it, given the deaths before)
    /// or it died `maxDeaths + 1` times; `onLaunch` runs once after each start. Returns how each run that died
    /// ended, with its standard error, and the run that stayed up.
    func restartUntilSteady(
        _ label: String, maxDeaths: Int, in cgroup: MemoryCgroup? = nil,
        onLaunch: (CrashTestRun) async -> Void = { _ in },
        isSteady: @escaping @Sendable (CrashTestRun, [CrashTestRun.Death]) async -> Bool
    ) async throws -> (deaths: [CrashTestRun.Death], steady: CrashTestRun) {
        var deaths: [CrashTestRun.Death] = []
        while deaths.count <= maxDeaths {
            let run = try launch("\(label)-\(deaths.count + 1)", in: cgroup)
            await onLaunch(run)
            let before = deaths
            let settled = await eventually(timeout: .hangGuard) {
                if run.process.hasExited { return true }
                return await isSteady(run, before)
            }
            if run.process.hasExited {
                deaths.append(await run.death())
                continue
            }
            guard settled else {
                run.process.send(SIGKILL)
                _ = await run.process.waitForExit()
                throw ProcessTestError("\(run.label) neither died nor settled within the hang guard:\n\(run.process.errors)")
            }
            return (deaths, run)
        }
        throw ProcessTestError("the process died \(deaths.count) times in a row:\n"
            + deaths.map { "\($0.exit.map { "\($0)" } ?? "no exit"):\n\($0.errors.suffix(3000))" }.joined(separator: "\n---\n"))
    }
}

/// One start of `CrashTestBots run`: its process, what its banner says, and what its log says.
struct CrashTestRun: Sendable {
    /// How a run that died ended, and what it wrote to standard error.
    struct Death: Sendable {
        var exit: BotProcess.Exit?
        var errors: String

        /// Whether some line on standard error says the process died on `signal`, wherever it is: the backtrace
        /// around which the report is written comes from another process, so the order of the writes is not certain.
        func saysItDied(onSignal signal: Int32) -> Bool {
            errors.split(separator: "\n").contains { $0.hasPrefix("chatterbots: the process died on signal \(signal) ") }
        }
    }

    let process: BotProcess
    let label: String

    func death() async -> Death {
        let exit = await process.waitForExit(timeout: .hangGuard)
        return Death(exit: exit, errors: process.errors)
    }

    /// Waits for the banner and reads the embedded sandbox's address from it.
    func server() async throws -> ChatterServerConfiguration {
        let banner = try await self.banner()
        guard let line = banner.split(separator: "\n").first(where: { $0.hasPrefix("Chatter sandbox: ") }),
            let apiText = line.dropFirst("Chatter sandbox: ".count).split(separator: " ").first,
            let realtime = line.range(of: "(realtime "), let keyMark = line.range(of: ", client key "),
            let close = line.range(of: ")", range: keyMark.upperBound..<line.endIndex),
            let api = URL(string: String(apiText)),
            let webSocket = URL(string: String(line[realtime.upperBound..<keyMark.lowerBound]))
        else { throw ProcessTestError("\(label)'s banner names no sandbox:\n\(banner)") }
        return ChatterServerConfiguration(
            apiBaseURL: api, webSocketURL: webSocket, clientKey: String(line[keyMark.upperBound..<close.lowerBound]))
    }

    /// Waits for the banner and reads the address of /healthz from it.
    func healthURL() async throws -> URL {
        let banner = try await self.banner()
        guard let line = banner.split(separator: "\n").first(where: { $0.hasPrefix("Health: ") }),
            let text = line.dropFirst("Health: ".count).split(separator: " ").first, let url = URL(string: String(text))
        else { throw ProcessTestError("\(label)'s banner names no health endpoint:\n\(banner)") }
        return url
    }

    private func banner() async throws -> String {
        let printed = await eventually(timeout: .hangGuard) {
            process.output.contains("Logs go to standard error") || process.hasExited
        }
        guard printed, process.output.contains("Logs go to standard error") else {
            throw ProcessTestError("\(label) printed no banner:\n\(process.output)\n\(process.errors)")
        }
        return process.output
    }

    /// The log lines of `bot` that contain `text`.
    func logLines(_ text: String, bot: String) -> [Substring] {
        Self.logLines(text, bot: bot, in: process.errors)
    }

    static func logLines(_ text: String, bot: String, in errors: String) -> [Substring] {
        errors.split(separator: "\n").filter { $0.contains(" bot=\(bot) ") && $0.contains(text) }
    }

    /// Whether `bot` logged `live` (its session is connected and synchronized).
    func isLive(_ bot: String) -> Bool {
        !logLines("msg=live", bot: bot).isEmpty
    }

    /// Waits until every one of `bots` logged `live`, or the process died.
    func waitUntilLive(_ bots: [String]) async -> Bool {
        await eventually(timeout: .hangGuard) { bots.allSatisfy(isLive) || process.hasExited }
            && bots.allSatisfy(isLive)
    }

    /// The work `bot` quarantined in this run, by the summaries its error lines name.
    func quarantinedSummaries(_ bot: String) -> [String] {
        Self.quarantinedSummaries(bot, in: process.errors)
    }

    static func quarantinedSummaries(_ bot: String, in errors: String) -> [String] {
        logLines("quarantined, not run again", bot: bot, in: errors).map { line in
            guard let range = line.range(of: " summary=") else { return "" }
            return String(line[range.upperBound...].prefix { $0 != " " }).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }

    /// /healthz with every bot's status, decoded.
    func health() async throws -> HealthReport {
        let url = try await healthURL()
        guard let every = URL(string: url.absoluteString + "?bots=all") else { throw ProcessTestError("no URL for \(url)") }
        let fetched = try await HTTPFetch.get(every)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(HealthReport.self, from: Data(fetched.body.utf8))
    }

    /// Asks for a graceful stop and waits for the exit.
    func stop() async -> BotProcess.Exit? {
        process.send(SIGTERM)
        return await process.waitForExit(timeout: .hangGuard)
    }
}
