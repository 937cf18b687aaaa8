@testable import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import Glibc
import TestSupport
import Testing

/// The built `example-bots run` reloading its bots.json, against a sandbox in this test process whose record of
/// socket opens and closes (`SandboxAdmin.socketEvents`) is the evidence: a bot that kept its session has no
/// event after the reload, a stopped one a close with 1000, a restarted one a close with 1000 and one open.
@Suite("example-bots reload", .serialized)
struct ReloadProcessTests {
    static let password = "reload-bot-password"
    static let accounts = ["a", "b", "c"]

    struct Fixture {
        let sandbox: Sandbox
        let directory: TemporaryDirectory

        static func start() async throws -> Fixture {
            var configuration = SandboxConfiguration(
                service: SandboxServiceConfiguration(passwordHashIterations: 1_000),
                seed: SandboxSeed(
                    users: accounts.map { SandboxUserSeed(username: "\($0)_bot", password: password) }
                        + [SandboxUserSeed(username: "alice", password: "alice-password")],
                    friendships: [SandboxFriendship("alice", "a_bot")]))
            // The sockets are the evidence, on the real clock: the bots are told a heartbeat interval of a year, so
            // that no ping's pong timeout (real time, in their process) runs during a test, and no socket is closed
            // as idle, however long the machine stalls.
            configuration.realtime.heartbeatInterval = .seconds(365 * 86_400)
            configuration.realtime.idleTimeout = .seconds(3 * 365 * 86_400)
            let sandbox = try await Sandbox.start(configuration)
            for name in accounts {
                let id = try #require(sandbox.seeded["\(name)_bot"]).user.id
                // The seed signed each account in once; that device is not a bot's.
                for device in try await sandbox.service.devices(ofUsers: [id]) { _ = try await sandbox.service.revokeDevice(device.id) }
            }
            let fixture = Fixture(sandbox: sandbox, directory: try TemporaryDirectory("ReloadProcessTests"))
            try fixture.directory.write("\(password)\n", to: "password")
            return fixture
        }

        /// bots.json with these bots (name → options), b's password from the file `password`.
        func configuration(_ bots: [(String, String)], extra: String = "") -> String {
            let entries = bots.map { name, options in
                let password = name == "b" ? #"{"file": "password"}"# : #"{"env": "BOT_PASSWORD"}"#
                return #"{"name": "\#(name)", "kind": "echo", "credentials": {"username": "\#(name)_bot", "password": \#(password)}, "friendRequests": "everyone", "options": \#(options)}"#
            }
            return """
                {"server": {"apiURL": "\(sandbox.apiURL.absoluteString)", "webSocketURL": "\(sandbox.webSocketURL.absoluteString)",
                            "clientKey": "\(sandbox.clientKey)"},
                 "dataDirectory": "data", "httpPort": 0\(extra),
                 "bots": [\(entries.joined(separator: ",\n"))]}
                """
        }

        /// Sends `text` from alice to a_bot and waits for the echo: a message is handled, not lost.
        func waitForEcho(of text: String) async throws -> Bool {
            let account = try #require(sandbox.seeded["alice"])
            let bot = try #require(sandbox.seeded["a_bot"])
            let alice = ChatterRESTClient(
                configuration: sandbox.serverConfiguration,
                tokenStore: ChatterTokenStore(tokens: SessionTokens(
                    accessToken: account.session.accessToken, refreshToken: account.session.refreshToken)),
                    requestTimeouts: .hangGuard)
            let conversation = try await alice.directConversation(with: bot.user.id)
            _ = try await alice.postMessage(.text(text), clientMessageId: .random(), in: conversation.id)
            return await eventually {
                let messages = (try? await alice.messages(in: conversation.id, afterSeq: 0).messages) ?? []
                return messages.contains { $0.senderId == bot.user.id && $0.body == "echo: \(text)" }
            }
        }

        func write(_ bots: [(String, String)], extra: String = "") throws {
            try directory.write(configuration(bots, extra: extra), to: "bots.json")
        }

        /// Writes the new file beside the old one and renames it over it, as a ConfigMap swap replaces the file.
        func replace(with bots: [(String, String)]) throws {
            try directory.write(configuration(bots), to: "bots.json.new")
            guard rename(directory.url.appendingPathComponent("bots.json.new").path,
                         directory.url.appendingPathComponent("bots.json").path) == 0 else {
                throw ProcessTestError("rename failed: errno \(errno)")
            }
        }

        /// `run`; unless `watchingTheFile`, the file watch is off, so that only the trigger under test reloads.
        func launch(label: String, watchingTheFile: Bool = false) throws -> BotProcess {
            try BotProcess(
                ["run", "--config", "bots.json"] + (watchingTheFile ? [] : ["--watch-config", "0"]), in: directory.url,
                environment: ["BOT_PASSWORD": password], label: label)
        }

        /// `example-bots reload`, to its end.
        func reloadCommand(label: String) async throws -> (exit: BotProcess.Exit?, process: BotProcess) {
            let process = try BotProcess(["reload", "--config", "bots.json"], in: directory.url, label: label)
            return (await process.waitForExit(timeout: .hangGuard), process)
        }

        /// The socket events of bot `name`'s account after `sequence`.
        func events(of name: String, after sequence: Int64 = 0) async -> [DeviceSocketEvent] {
            await sandbox.admin.socketEvents(after: sequence).filter { $0.username == "\(name)_bot" }
        }

        /// The latest event's sequence: what "after the reload" is measured from.
        func lastSequence() async -> Int64 {
            await sandbox.admin.socketEvents().last?.sequence ?? 0
        }

        /// Waits until each of `names` has a socket open (opened more often than closed).
        func waitUntilOpen(_ names: [String]) async -> Bool {
            await eventually(timeout: .hangGuard) {
                for name in names {
                    let events = await events(of: name)
                    if events.filter({ $0.kind == .opened }).count <= events.filter({ $0.kind == .closed }).count { return false }
                }
                return true
            }
        }

        func stop(_ process: BotProcess) async {
            process.send(SIGTERM)
            _ = await process.waitForExit(timeout: .hangGuard)
            await sandbox.shutdown()
        }
    }

    @Test func aBotAddedBySIGHUPComesUpWhileTheOthersKeepTheirSockets() async throws {
        let fixture = try await Fixture.start()
        try fixture.write([("a", "{}"), ("b", "{}")])
        let process = try fixture.launch(label: "sighup-add")
        #expect(await fixture.waitUntilOpen(["a", "b"]), "\(process.errors)")
        let before = await fixture.lastSequence()

        try fixture.write([("a", "{}"), ("b", "{}"), ("c", "{}")])
        process.send(SIGHUP)
        // a keeps its session through the reload: a message sent meanwhile is answered.
        #expect(try await fixture.waitForEcho(of: "during the reload"), "\(process.errors)")
        #expect(await fixture.waitUntilOpen(["c"]), "\(process.errors)")
        #expect(await eventually { process.errors.contains("reloaded: configuration generation 2; started c; stopped none; restarted none; 2 unchanged") },
                "\(process.errors)")
        #expect(process.errors.contains("trigger=SIGHUP"), "\(process.errors)")
        #expect(await fixture.events(of: "a", after: before).isEmpty)
        #expect(await fixture.events(of: "b", after: before).isEmpty)
        #expect(!process.hasExited)
        await fixture.stop(process)
    }

    @Test func aBotRemovedThroughTheReloadCommandClosesWith1000() async throws {
        let fixture = try await Fixture.start()
        try fixture.write([("a", "{}"), ("b", "{}")])
        let process = try fixture.launch(label: "command-remove")
        #expect(await fixture.waitUntilOpen(["a", "b"]), "\(process.errors)")
        let before = await fixture.lastSequence()

        try fixture.write([("a", "{}")])
        let (exit, command) = try await fixture.reloadCommand(label: "reload-remove")
        #expect(exit == .code(0), "\(command.errors)")
        #expect(command.output.contains("started none; stopped b; restarted none; 1 unchanged"), "\(command.output)")
        // The sandbox records the close once it has seen the socket end, just after the bot's side.
        #expect(await eventually { await !fixture.events(of: "b", after: before).isEmpty })
        let closes = await fixture.events(of: "b", after: before)
        #expect(closes.map(\.kind) == [.closed])
        #expect(closes.first?.closeCode == 1000)
        #expect(closes.first?.closedBy == "client")
        #expect(await fixture.events(of: "a", after: before).isEmpty)
        await fixture.stop(process)
    }

    @Test func aBotChangedInAFileRenamedOverTheOldOneRestartsAndTheOthersAreUntouched() async throws {
        let fixture = try await Fixture.start()
        try fixture.write([("a", "{}"), ("b", "{}")])
        let process = try fixture.launch(label: "file-change", watchingTheFile: true)
        #expect(await fixture.waitUntilOpen(["a", "b"]), "\(process.errors)")
        let before = await fixture.lastSequence()

        try fixture.replace(with: [("a", #"{"prefix": "changed: "}"#), ("b", "{}")])
        let restarted = await eventually { await fixture.events(of: "a", after: before).map(\.kind) == [.closed, .opened] }
        let seen = await fixture.events(of: "a", after: before)
        #expect(restarted, "\(seen) \(process.errors)")
        #expect(await fixture.events(of: "a", after: before).first?.closeCode == 1000)
        #expect(process.errors.contains("the file changed"), "\(process.errors)")
        #expect(await fixture.events(of: "b", after: before).isEmpty)
        await fixture.stop(process)
    }

    @Test func aRotatedPasswordFileRestartsOnlyItsBot() async throws {
        let fixture = try await Fixture.start()
        try fixture.write([("a", "{}"), ("b", "{}")])
        let process = try fixture.launch(label: "rotated")
        #expect(await fixture.waitUntilOpen(["a", "b"]), "\(process.errors)")
        let before = await fixture.lastSequence()

        // The account keeps its password; the bot's store keeps its tokens: what counts is that the file changed.
        try fixture.directory.write("\(Self.password)\n\n", to: "password")
        let (exit, command) = try await fixture.reloadCommand(label: "reload-rotated")
        #expect(exit == .code(0), "\(command.errors)")
        #expect(command.output.contains("restarted b"), "\(command.output)")
        #expect(await eventually { await fixture.events(of: "b", after: before).map(\.kind) == [.closed, .opened] })
        #expect(await fixture.events(of: "a", after: before).isEmpty)
        #expect(!process.errors.contains(Self.password), "a secret reached the log")
        await fixture.stop(process)
    }

    @Test func anInvalidFileChangesNothingAndEveryErrorIsPrinted() async throws {
        let fixture = try await Fixture.start()
        try fixture.write([("a", "{}"), ("b", "{}")])
        let process = try fixture.launch(label: "invalid")
        #expect(await fixture.waitUntilOpen(["a", "b"]), "\(process.errors)")
        let before = await fixture.lastSequence()

        try fixture.directory.write("", to: "password")
        try fixture.write([("a", "{}"), ("b", "{}"), ("a", #"{"prefix": "twin"}"#)])
        let (exit, command) = try await fixture.reloadCommand(label: "reload-invalid")
        #expect(exit == .code(1))
        #expect(command.errors.contains("reload refused, nothing changed"), "\(command.errors)")
        #expect(command.errors.contains(#"bot "b", credentials.password: the file "#), "\(command.errors)")
        #expect(command.errors.contains("is empty"), "\(command.errors)")
        #expect(command.errors.contains(#"bot "a", name: is also the name of bots[0]"#), "\(command.errors)")
        #expect(process.errors.contains("reload refused, nothing changed"), "\(process.errors)")

        // Valid again but changing what needs a restart: refused too, naming the field.
        try fixture.directory.write("\(Self.password)\n", to: "password")
        try fixture.write([("a", "{}"), ("b", "{}"), ("c", "{}")], extra: #", "logLevel": "debug""#)
        let (again, second) = try await fixture.reloadCommand(label: "reload-restart-field")
        #expect(again == .code(1))
        #expect(second.errors.contains("logLevel: changed, which a reload cannot apply; restart the process"), "\(second.errors)")

        #expect(await fixture.sandbox.admin.socketEvents(after: before).isEmpty)
        #expect(!process.hasExited)
        await fixture.stop(process)
    }
}
