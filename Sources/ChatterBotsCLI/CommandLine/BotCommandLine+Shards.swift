import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import WebSocket

extension BotCommandLine {
    /// The members of `lineup` that `shard` runs, in configuration order; all of them without a shard.
    static func members(of lineup: BotLineup, on shard: Shard?) -> BotLineup {
        guard let shard else { return lineup }
        let assignment = ShardAssignment(of: shard)
        var shardLineup = lineup
        shardLineup.members = lineup.members.filter { assignment.runs($0.configuration.name, on: shard.index) }
        return shardLineup
    }

    /// After a change of the shard count, refuses to start a bot of `shard` whose store is still where it ran before
    /// (`ShardCountGuard`); false after printing why. `recordShardCount` records the count once the run started.
    func checkShardCount(
        _ shard: Shard, lineup: BotLineup, configuration: BotsConfiguration, in environment: CommandEnvironment
    ) -> Bool {
        let directory = configuration.dataDirectory
        var countGuard = ShardCountGuard.read(in: directory)
        // A fresh volume (a new pod of a StatefulSet that grows) has no history: the operator states the old count.
        if countGuard.previousCount == nil, let stated = environment.variables[ShardCountGuard.previousCountVariable] {
            guard let count = try? Shard.count(parsing: stated) else {
                environment.standardError.write(line: "\(programName): \(ShardCountGuard.previousCountVariable) must be a "
                    + "shard count (a whole number from 1 to \(Shard.maximumCount)), not \"\(stated)\"")
                return false
            }
            countGuard.previousCount = count
        }
        let missing = countGuard.missingStores(of: lineup.members.map(\.configuration.name), on: shard) { bot in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("\(bot).sqlite").path)
        }
        guard missing.isEmpty else {
            let previous = countGuard.previousCount ?? 0
            let list = missing.map { "\($0.bot) (shard \($0.previousShard) of \(previous))" }.joined(separator: ", ")
            environment.standardError.write(line: "\(programName): the shard count changed from \(previous) to \(shard.count), "
                + "and these bots of shard \(shard) have no store here: \(list). Started now, each would sign in as a new "
                + "device while its store (its device, its unsent messages) is still where it ran: stop that shard, "
                + "`export` each bot there and `import` it here, then start again (docs/scaling.md). To start them as new "
                + "devices instead, delete \(directory.appendingPathComponent("shard-count.json").path).")
            return false
        }
        return true
    }

    /// Records the shard count and the fleet's bots of `configuration` in its data directory, once the run has
    /// started (a run that failed to start, on a port in use say, must not change what the next start compares
    /// with) and after each applied reload.
    static func recordShardCount(_ shard: Shard, configuration: BotsConfiguration, log: LogSink) {
        let directory = configuration.dataDirectory
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try ShardCountGuard.record(shard.count, fleet: configuration.bots.map(\.name), in: directory)
        } catch {
            log.log(.error, "cannot record the shard count in \(directory.path): \(error); after a change of the count, "
                + "bots that moved are not held back until their stores are here")
        }
    }

    /// Waits until the sandbox that shard 0 embeds answers on `port` (it seeds every account before it listens);
    /// false when a shutdown is requested first.
    func waitForSharedSandbox(port: Int, shutdown: ShutdownRequest, log: LogSink) async -> Bool {
        let origin = HTTPOrigin(isSecure: false, host: "127.0.0.1", port: port)
        var waitedBefore = false
        while !shutdown.isRequested {
            do {
                _ = try await HTTPClient.shared.send(HTTPRequest(method: .get, target: "/v1/health"), to: origin, timeout: .seconds(5))
                if waitedBefore { log.log(.info, "the shared sandbox answers on 127.0.0.1:\(port)") }
                return true
            } catch {
                if !waitedBefore {
                    log.log(.notice, "waiting for shard 0 to start the shared sandbox on 127.0.0.1:\(port)", ["error": "\(error)"])
                    waitedBefore = true
                }
            }
            try? await Task.sleep(for: Self.sharedSandboxRetryInterval)
        }
        return false
    }

    /// How often a shard other than 0 tries the shared sandbox until it answers.
    static let sharedSandboxRetryInterval: Duration = .milliseconds(250)

    /// The first line of `run`'s banner in a shard: which shard, and how many of the configured bots it runs.
    static func shardBannerLine(_ shard: Shard, running: Int, of total: Int) -> String {
        "shard \(shard): \(running) of \(total) bot\(total == 1 ? "" : "s") (the others run in the other shards)"
    }

    /// `check --shards N [--from M]`: each shard's bots, and with `from`, which bots move from which shard to which.
    static func shardReport(bots: [String], shards count: Int, from previous: Int?) -> [String] {
        let assignment = ShardAssignment(count: count)
        var lines = ["Shards: \(count) (rendezvous hashing of the bot names; docs/scaling.md)"]
        for (index, names) in assignment.shards(of: bots).enumerated() {
            lines.append("  shard \(index)/\(count): \(names.count) bot\(names.count == 1 ? "" : "s")"
                + (names.isEmpty ? "" : ": " + names.joined(separator: ", ")))
        }
        guard let previous else { return lines }
        let moves = assignment.moves(from: ShardAssignment(count: previous), of: bots)
        lines.append("From \(previous) to \(count) shards: \(moves.count) of \(bots.count) bot\(bots.count == 1 ? "" : "s") move"
            + (moves.isEmpty ? "." : ":"))
        let nameWidth = moves.map(\.bot.count).max() ?? 0
        for move in moves {
            let padding = String(repeating: " ", count: nameWidth - move.bot.count)
            lines.append("  \(move.bot)\(padding)  shard \(move.from) -> shard \(move.to)")
        }
        return lines
    }
}

extension EmbeddedSandbox {
    /// Where the embedded sandbox of another process on this host listens on `port`: what shards other than 0
    /// connect to.
    package static func serverConfiguration(port: Int) -> ChatterServerConfiguration {
        let authority = "127.0.0.1:\(port)"
        // An IP literal and a port: these URLs always parse.
        return ChatterServerConfiguration(
            apiBaseURL: URL(string: "http://\(authority)/v1") ?? URL(fileURLWithPath: "/"),
            webSocketURL: URL(string: "ws://\(authority)/v1/ws") ?? URL(fileURLWithPath: "/"),
            clientKey: SandboxClientCredential.sandbox.clientKey)
    }
}
