@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Glibc
import TestSupport
import Testing

/// Going from 3 to 4 shards across machines (each shard its own working and data directory, as each pod of a
/// StatefulSet has its own volume), with `export` and `import` between them: the moved bots keep their device and
/// their unsent replies, nothing is lost or duplicated, the new machine refuses a moved bot before its store
/// arrives, and a moved-away store refuses to start where it was.
@Suite("resharding with export and import", .serialized)
struct ReshardingProcessTests {
    static let bots = (0..<16).map { String(format: "mover%02d", $0) }
    static let password = "reshard-bot-password"

    struct Machines {
        let sandbox: Sandbox
        let root: TemporaryDirectory
        let alice: ChatterRESTClient
        let conversations: [String: Conversation]
        let userIds: [String: User.ID]

        func directory(_ index: Int) -> URL { root.url.appendingPathComponent("machine-\(index)", isDirectory: true) }

        /// A shard's `run` on its machine; a short shutdown timeout gives up on held acknowledgements at once.
        func run(
            _ index: Int, of count: Int, label: String, shutdownSeconds: Int = 10, environment: [String: String] = [:]
        ) throws -> BotProcess {
            try BotProcess(
                ["run", "--shard", "\(index)/\(count)", "--shutdown-timeout", "\(shutdownSeconds)"], in: directory(index),
                environment: ["BOT_PASSWORD": ReshardingProcessTests.password].merging(environment) { $1 }, label: label)
        }

        func command(_ arguments: [String], on index: Int, label: String) async throws -> (BotProcess.Exit?, BotProcess) {
            let process = try BotProcess(arguments, in: directory(index), environment: ["BOT_PASSWORD": ReshardingProcessTests.password], label: label)
            return (await process.waitForExit(timeout: .hangGuard), process)
        }

        /// Per bot: its devices at the service, and how many have a socket open (1 and 1: live once).
        func devices() async throws -> [String: (all: [Device.ID], live: Int)] {
            let connected = await sandbox.admin.connectedDevices()
            var result: [String: (all: [Device.ID], live: Int)] = [:]
            for bot in ReshardingProcessTests.bots {
                let ids = try await sandbox.service.devices(ofUsers: [userIds[bot] ?? ""]).map(\.id)
                result[bot] = (ids, ids.filter { connected.contains($0) }.count)
            }
            return result
        }

        func everyBotLiveOnce() async -> Bool {
            await eventually(timeout: .hangGuard) {
                guard let devices = try? await devices() else { return false }
                return devices.values.allSatisfy { $0.all.count == 1 && $0.live == 1 }
            }
        }

        /// The bot's replies in its conversation with alice, as the service stores them.
        func replies(of bot: String) async throws -> [String] {
            let conversation = try #require(conversations[bot])
            return try await alice.messages(in: conversation.id, afterSeq: 0).messages
                .filter { $0.senderId == userIds[bot] }.map { $0.body ?? "" }
        }
    }

    static func start() async throws -> Machines {
        let sandbox = try await Sandbox.start(SandboxConfiguration(
            service: SandboxServiceConfiguration(passwordHashIterations: 1_000),
            seed: SandboxSeed(
                users: [SandboxUserSeed(username: "alice", password: "alice-password")]
                    + bots.map { SandboxUserSeed(username: "\($0)_bot", password: password) },
                friendships: bots.map { SandboxFriendship("alice", "\($0)_bot") })))
        var userIds: [String: User.ID] = [:]
        for bot in bots {
            let id = try #require(sandbox.seeded["\(bot)_bot"]).user.id
            userIds[bot] = id
            // The seed signed the account in once; that device is not the bot's.
            for device in try await sandbox.service.devices(ofUsers: [id]) { _ = try await sandbox.service.revokeDevice(device.id) }
        }
        let aliceAccount = try #require(sandbox.seeded["alice"])
        let alice = ChatterRESTClient(
            configuration: sandbox.serverConfiguration,
            tokenStore: ChatterTokenStore(tokens: SessionTokens(
                accessToken: aliceAccount.session.accessToken, refreshToken: aliceAccount.session.refreshToken)),
                requestTimeouts: .hangGuard)
        var conversations: [String: Conversation] = [:]
        for bot in bots { conversations[bot] = try await alice.directConversation(with: userIds[bot] ?? "") }
        let root = try TemporaryDirectory("ReshardingProcessTests")
        let entries = bots.map { bot in
            #"{"name": "\#(bot)", "kind": "echo", "credentials": {"username": "\#(bot)_bot", "password": {"env": "BOT_PASSWORD"}}, "friendRequests": "everyone"}"#
        }
        let configuration = """
            {"server": {"apiURL": "\(sandbox.apiURL.absoluteString)", "webSocketURL": "\(sandbox.webSocketURL.absoluteString)",
                        "clientKey": "\(sandbox.clientKey)"},
             "dataDirectory": "data", "sendPacing": "off",
             "bots": [\(entries.joined(separator: ",\n"))]}
            """
        for index in 0..<4 {
            let directory = root.url.appendingPathComponent("machine-\(index)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(configuration.utf8).write(to: directory.appendingPathComponent("bots.json"))
        }
        return Machines(sandbox: sandbox, root: root, alice: alice, conversations: conversations, userIds: userIds)
    }

    @Test func movedBotsKeepTheirDeviceAndUnsentRepliesAndRunOnceInTheirNewShard() async throws {
        let machines = try await Self.start()
        defer { Task { await machines.sandbox.shutdown() } }
        let (three, four) = (ShardAssignment(count: 3), ShardAssignment(count: 4))
        let moves = four.moves(from: three, of: Self.bots)
        try #require(!moves.isEmpty, "the names were chosen so that some bots move")

        let before = try (0..<3).map { try machines.run($0, of: 3, label: "three-\($0)", shutdownSeconds: 1) }
        defer { for process in before { process.send(SIGKILL) } }
        #expect(await machines.everyBotLiveOnce(), "\(before.map { $0.errors.suffix(800) })")
        let devicesBefore = try await machines.devices()

        // Each bot that moves answers once more before its shard stops, its reply's ack held back by the service: the
        // reply is stored there, and the bot's outbox still holds it.
        for move in moves {
            let device = try #require(devicesBefore[move.bot]?.all.first)
            try await machines.sandbox.admin.inject(.delayAcks(.seconds(600)), into: device)
            _ = try await machines.alice.postMessage(.text("hello \(move.bot)"), clientMessageId: .random(), in: #require(machines.conversations[move.bot]).id)
        }
        for move in moves {
            let answered = await eventually(timeout: .hangGuard) { (try? await machines.replies(of: move.bot)) == ["echo: hello \(move.bot)"] }
            #expect(answered, "\(move.bot)")
        }
        for process in before { process.send(SIGTERM) }
        for process in before { _ = await process.waitForExit(timeout: .hangGuard) }
        for move in moves {
            if let device = devicesBefore[move.bot]?.all.first { await machines.sandbox.admin.clearFaults(of: device) }
        }

        // The new machine is refused the moved bots while their stores are still on their old machines.
        let early = try machines.run(3, of: 4, label: "four-3-early", environment: ["CHATTERBOTS_PREVIOUS_SHARD_COUNT": "3"])
        #expect(await early.waitForExit(timeout: .hangGuard) == .code(2), "\(early.errors)")
        #expect(early.errors.contains("no store here"), "\(early.errors)")

        for move in moves {
            let file = machines.root.url.appendingPathComponent("\(move.bot).store").path
            let (exported, export) = try await machines.command(["export", move.bot, "--to", file], on: move.from, label: "export-\(move.bot)")
            #expect(exported == .code(0), "\(export.errors)")
            #expect(export.output.contains("1 outbox entry pending"), "\(export.output)")
            let (imported, importing) = try await machines.command(["import", file], on: move.to, label: "import-\(move.bot)")
            #expect(imported == .code(0), "\(importing.errors)")
        }

        let after = try (0..<4).map { index in
            try machines.run(index, of: 4, label: "four-\(index)", environment: ["CHATTERBOTS_PREVIOUS_SHARD_COUNT": "3"])
        }
        defer { for process in after { process.send(SIGKILL) } }
        #expect(await machines.everyBotLiveOnce(), "\(after.map { $0.errors.suffix(800) })")
        let devicesAfter = try await machines.devices()
        for bot in Self.bots {
            #expect(devicesAfter[bot]?.all == devicesBefore[bot]?.all, "\(bot) kept its device")
        }
        // The held replies went out again from the new shard; the service kept one of each.
        for process in after { process.send(SIGTERM) }
        for process in after { #expect(await process.waitForExit(timeout: .hangGuard) == .code(0), "\(process.errors.suffix(1500))") }
        for move in moves {
            let store = try await BotStore.open(path: machines.directory(move.to).appendingPathComponent("data/\(move.bot).sqlite").path)
            #expect(try await store.pendingOutbox().isEmpty, "\(move.bot)'s held reply was acknowledged from its new shard")
            await store.close()
            #expect(try await machines.replies(of: move.bot) == ["echo: hello \(move.bot)"])
        }

        // A moved-away store refuses to start where it was: its old shard, run again with the old count.
        let move = try #require(moves.first)
        let stale = try machines.run(move.from, of: 3, label: "three-again")
        defer { stale.send(SIGKILL) }
        #expect(await eventually(timeout: .hangGuard) { stale.errors.contains("was moved") }, "\(stale.errors)")
        stale.send(SIGTERM)
        _ = await stale.waitForExit(timeout: .hangGuard)
    }
}
