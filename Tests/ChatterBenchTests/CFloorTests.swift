import Foundation
import Testing
import TestSupport

@testable import ChatterBench

@Suite("CFloor")
struct CFloorTests {
    /// The machine's C compiler, when there is one: the end-to-end test needs it (and SQLite's headers).
    static let compiler = CFloor.compiler(path: ProcessInfo.processInfo.environment["PATH"])

    static func scratchDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cfloor-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func itIsBuiltWithTheCommandTheReadmeGives() {
        let arguments = CFloor.buildArguments(
            source: URL(fileURLWithPath: "/src/echo_floor.c"), output: URL(fileURLWithPath: "/work/echo_floor"))
        #expect(arguments == ["-O2", "-o", "/work/echo_floor", "/src/echo_floor.c", "-lsqlite3"])
        #expect(FileManager.default.fileExists(atPath: CFloor.source.path))
    }

    @Test func withoutACompilerOnThePathThereIsNone() throws {
        let empty = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(CFloor.compiler(path: empty.path) == nil)
        #expect(CFloor.compiler(path: "") == nil)
    }

    @Test func aMissingSourceIsAFailureNamingIt() async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("nowhere.c")
        let error = await #expect(throws: BenchFailure.self) { try await CFloor.executable(in: directory, source: missing) }
        #expect(error?.description.contains("nowhere.c") == true)
    }

    /// The floor, built with the machine's `cc`, against an in-process load server: it finds the messages waiting
    /// for it by syncing (more than a sync.response holds in one conversation: the rest over REST), then answers a
    /// flood in two conversations once each, and marks every reply acknowledged. Its bounds in real time are hang
    /// guards, far beyond the minute a whole-suite run on two cores can stall a test for.
    @Test(.enabled(if: compiler != nil), .timeLimit(.minutes(5)))
    func theFloorAnswersEveryMessageOnceAndMarksEveryAck() async throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = try await CFloor.executable(in: directory)
        let server = try await LoadBenchServer.start(try ServeOptions(arguments: ["--server", "load"]))
        let spec = WorldSpec(
            botUsernames: ["floor_c"], personUsernames: ["floor_sender_0", "floor_sender_1"], password: BenchDefaults.password,
            links: [
                WorldSpec.Link(person: 0, bot: 0, waitingMessages: 250), WorldSpec.Link(person: 1, bot: 0, waitingMessages: 3),
            ])
        let world = try await server.build(spec)
        let fleet = try FleetProcess(
            .c, command: [executable.path], bots: world.bots, password: world.password, endpoint: server.endpoint,
            dataDirectory: directory.appendingPathComponent("fleet"))
        var flood: FloodResult?
        var acked = false
        var failure: (any Error)?
        do {
            try await fleet.start(bootTimeout: .hangGuard)
            guard await fleet.waitUntilLive(1, timeout: .hangGuard) != nil else { throw BenchFailure("the C floor never went live") }
            let result = try await FloodRequest(
                conversations: world.links.map(\.conversationId), count: 300, firstNumber: 0, window: 32, timeoutSeconds: 120
            ).run(against: server.endpoint)
            flood = result
            acked = await fleet.waitUntilAcked(250 + 3 + result.sent, timeout: .hangGuard)
        } catch {
            failure = error
        }
        await fleet.stop()
        await server.shutdown()
        if let failure { throw failure }
        let result = try #require(flood)
        #expect(result.sent == 600)
        #expect(result.replies == result.sent)
        #expect(result.duplicateReplies == 0)
        #expect(acked, "the floor marked every reply, the waiting messages' included, acknowledged")
        #expect(fleet.errorCount == 0)
    }
}
