@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Glibc
import TestSupport
import Testing

/// Three `example-bots run --shard INDEX/3` processes over one bots.json of 30 bots, in one working directory
/// (one data directory), against a sandbox in this test process: every bot is live exactly once.
@Suite("example-bots in shards", .serialized)
struct ShardedExampleBotsProcessTests {
    static let bots = (0..<30).map { String(format: "bot%02d", $0) }
    static let password = "shard-bot-password"

    @Test func threeShardsOverOneConfigurationRunEveryBotExactlyOnce() async throws {
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            service: SandboxServiceConfiguration(passwordHashIterations: 1_000),
            seed: SandboxSeed(users: Self.bots.map { SandboxUserSeed(username: "\($0)_bot", password: Self.password) })))
        defer { Task { await sandbox.shutdown() } }
        let userIds = try Self.bots.map { bot in try #require(sandbox.seeded["\(bot)_bot"]).user.id }
        // The seed signed each account in once; that device is not a bot's.
        for id in userIds {
            for device in try await sandbox.service.devices(ofUsers: [id]) { _ = try await sandbox.service.revokeDevice(device.id) }
        }
        let directory = try TemporaryDirectory("ShardedExampleBotsProcessTests")
        let entries = Self.bots.map { bot in
            #"{"name": "\#(bot)", "kind": "echo", "credentials": {"username": "\#(bot)_bot", "password": {"env": "BOT_PASSWORD"}}, "friendRequests": "everyone"}"#
        }
        try directory.write("""
            {"server": {"apiURL": "\(sandbox.apiURL.absoluteString)", "webSocketURL": "\(sandbox.webSocketURL.absoluteString)",
                        "clientKey": "\(sandbox.clientKey)"},
             "dataDirectory": "data",
             "bots": [\(entries.joined(separator: ",\n"))]}
            """, to: "bots.json")

        let processes = try (0..<3).map { index in
            try BotProcess(
                ["run", "--config", "bots.json", "--shard", "\(index)/3"], in: directory.url,
                environment: ["BOT_PASSWORD": Self.password], label: "shard-\(index)")
        }
        defer { for process in processes { process.send(SIGKILL) } }

        /// Per bot account: its signed-in devices and how many of them have a socket open.
        @Sendable func liveDevices() async throws -> [Int] {
            let connected = await sandbox.admin.connectedDevices()
            var counts: [Int] = []
            for id in userIds {
                let devices = try await sandbox.service.devices(ofUsers: [id])
                counts.append(devices.count == 1 ? devices.filter { connected.contains($0.id) }.count : -devices.count)
            }
            return counts
        }
        let everyBotLiveOnce = await eventually(timeout: .hangGuard) {
            (try? await liveDevices()) == Array(repeating: 1, count: Self.bots.count)
        }
        let devices = try await liveDevices()
        #expect(everyBotLiveOnce, "per bot, 1: one device, live; 0: one, not live; -n: n devices: \(devices)")
        #expect(await sandbox.admin.connectedDevices().count == Self.bots.count)

        // Each process says which shard it is and runs the bots the assignment gives it, and no other.
        let shards = ShardAssignment(count: 3).shards(of: Self.bots)
        for (index, process) in processes.enumerated() {
            #expect(process.output.hasPrefix("shard \(index)/3: \(shards[index].count) of 30 bots"), "\(process.output)")
            let logged = await eventually(timeout: .hangGuard) { Self.liveBots(in: process.errors) == Set(shards[index]) }
            #expect(logged, "shard \(index) logged live: \(Self.liveBots(in: process.errors).sorted())")
        }
        #expect(FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("data/shard-2/in-flight.table").path))

        for process in processes { process.send(SIGTERM) }
        for process in processes {
            #expect(await process.waitForExit(timeout: .hangGuard) == .code(0), "\(process.errors.suffix(2000))")
        }
    }

    @Test func shardsOfOneHostShareTheSandboxShardZeroEmbeds() async throws {
        let bots = Array(Self.bots.prefix(8))
        let directory = try TemporaryDirectory("ShardedExampleBotsProcessTests")
        let entries = bots.map { bot in
            #"{"name": "\#(bot)", "kind": "echo", "credentials": {"username": "\#(bot)_bot", "password": "password-\#(bot)"}, "friendRequests": "everyone"}"#
        }
        try directory.write(#"{"server": "sandbox", "dataDirectory": "data", "bots": [\#(entries.joined(separator: ",\n"))]}"#, to: "bots.json")
        let port = try FreePort.take()
        func launch(_ index: Int) throws -> BotProcess {
            try BotProcess(
                ["run", "--shard", "\(index)/2", "--sandbox-port", "\(port)"], in: directory.url, label: "shard-\(index)")
        }
        // Shard 1 first: it waits for the sandbox of shard 0, which seeds shard 1's accounts too.
        let second = try launch(1)
        defer { second.send(SIGKILL) }
        #expect(await eventually(timeout: .hangGuard) { second.errors.contains("waiting for shard 0") })
        let first = try launch(0)
        defer { first.send(SIGKILL) }

        let shards = ShardAssignment(count: 2).shards(of: bots)
        for (index, process) in [first, second].enumerated() {
            let live = await eventually(timeout: .hangGuard) { Self.liveBots(in: process.errors) == Set(shards[index]) }
            #expect(live, "shard \(index) logged live: \(Self.liveBots(in: process.errors).sorted()); \(process.errors.suffix(2000))")
        }
        #expect(second.output.contains("Chatter sandbox: the one shard 0 serves at http://127.0.0.1:\(port)/v1"))
        #expect(!second.errors.contains("level=error"))

        second.send(SIGTERM)
        #expect(await second.waitForExit(timeout: .hangGuard) == .code(0))
        first.send(SIGTERM)
        #expect(await first.waitForExit(timeout: .hangGuard) == .code(0))
    }

    /// The bots a process's log says went live.
    static func liveBots(in log: String) -> Set<String> {
        Set(log.split(separator: "\n").filter { $0.contains(" msg=live") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("bot=") }.map { String($0.dropFirst(4)) }
        })
    }
}
