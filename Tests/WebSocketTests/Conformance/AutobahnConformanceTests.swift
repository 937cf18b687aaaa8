import Foundation
import Testing
@testable import WebSocket

/// The Autobahn test suite (run by `kosoku` 0.1.0) against our server and our client, cases 1-7 and 10:
/// framing, pings and pongs, reserved bits, opcodes, fragmentation, UTF-8 handling, closing, auto-fragmentation.
/// Reports go to a temporary directory; a case FAILED or ERROR fails the test, NON-STRICT ones are listed.
/// Several cases allow the peer one second to answer, so both apps run on a dedicated executor: CPU-bound tests
/// running at the same time cannot hold them back on the cooperative pool.
@Suite("Autobahn conformance", .serialized)
struct AutobahnConformanceTests {
    static let cases = ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "10.*"]
    static let agent = "ChatterBots"

    @Test func serverPassesTheFuzzingClient() async throws {
        var configuration = HTTPServerConfiguration()
        configuration.taskExecutor = DedicatedThreadExecutor.shared
        let server = try await HTTPServer.start(configuration: configuration) { request in
            .webSocket { connection in
                for await message in connection.messages {
                    try? await connection.send(message)
                }
            }
        }
        let reports = try TemporaryDirectory(prefix: "autobahn-server")
        let kosoku = try PeerProcess(
            script: "kosoku_runner.py",
            arguments: ["-m", "fuzzingclient", "127.0.0.1:\(server.port)"] + Self.cases.flatMap { ["-i", $0] }
                + ["-o", reports.url.path],
            mergingStandardError: true)
        let status = await kosoku.exitStatus()
        await server.shutdown()
        let summary = try AutobahnReport(directory: reports.url, agent: Self.agent)
        summary.record(role: "server", exitStatus: status)
        #expect(summary.caseCount >= 200)
    }

    @Test func clientPassesTheFuzzingServer() async throws {
        let reports = try TemporaryDirectory(prefix: "autobahn-client")
        let kosoku = try PeerProcess(
            script: "kosoku_runner.py",
            arguments: ["-m", "fuzzingserver", "127.0.0.1:0"] + Self.cases.flatMap { ["-i", $0] } + ["-o", reports.url.path],
            mergingStandardError: true)
        var port: Int?
        while port == nil {
            let line = try await kosoku.nextLine()
            if let range = line.range(of: "listening on ws://127.0.0.1:") { port = Int(line[range.upperBound...]) }
        }
        let base = "ws://127.0.0.1:\(try #require(port))"
        try await withTaskExecutorPreference(DedicatedThreadExecutor.shared) {
            try await AutobahnClient(base: base, agent: Self.agent).runAllCases()
        }
        let status = await kosoku.exitStatus()
        let summary = try AutobahnReport(directory: reports.url, agent: Self.agent)
        summary.record(role: "client", exitStatus: status)
        #expect(summary.caseCount >= 200)
    }
}

/// Our client following the Autobahn fuzzing server's protocol: ask for the case count, run every case as an
/// echo client, then ask the server to write its reports.
struct AutobahnClient {
    var base: String
    var agent: String

    func runAllCases() async throws {
        let countConnection = try await WebSocketClient.connect(to: #require(URL(string: "\(base)/getCaseCount")))
        var messages = countConnection.messages.makeAsyncIterator()
        guard case .text(let text)? = await messages.next(), let count = Int(text) else {
            throw AutobahnReport.Failure(description: "no case count from the fuzzing server")
        }
        _ = await countConnection.closeInfo
        for index in 1...count {
            try await runCase(index)
        }
        let update = try await WebSocketClient.connect(to: #require(URL(string: "\(base)/updateReports?agent=\(agent)")))
        for await _ in update.messages {}
    }

    private func runCase(_ index: Int) async throws {
        var configuration = WebSocketClientConfiguration()
        configuration.closeTimeout = .seconds(2)
        let connection: WebSocketConnection
        do {
            connection = try await WebSocketClient.connect(
                to: #require(URL(string: "\(base)/runCase?case=\(index)&agent=\(agent)")), configuration: configuration)
        } catch {
            // A case may fail the opening handshake on purpose; the report judges it.
            return
        }
        for await message in connection.messages {
            do {
                try await connection.send(message)
            } catch {
                break
            }
        }
        _ = await connection.closeInfo
    }
}

/// The reports kosoku writes: `index.json` maps agent → case id → {behavior, behaviorClose, reportfile, ...},
/// and each case's own JSON file explains the verdict in `result` and `resultClose`.
struct AutobahnReport {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Case {
        var id: String
        var behavior: String
        var behaviorClose: String
        var result: String
        var resultClose: String
        /// What kosoku observed (messages, pings, pongs), for diagnosing a failure.
        var received: String
    }

    let cases: [Case]
    var caseCount: Int { cases.count }

    static let acceptable: Set<String> = ["OK", "NON-STRICT", "INFORMATIONAL"]

    init(directory: URL, agent: String) throws {
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("index.json")))
        guard let agents = index as? [String: [String: [String: Any]]], let entries = agents[agent] ?? agents.values.first else {
            throw Failure(description: "index.json has no results for \(agent)")
        }
        cases = try entries.map { id, entry in
            let file = directory.appendingPathComponent(entry["reportfile"] as? String ?? "")
            let detail = (try? JSONSerialization.jsonObject(with: Data(contentsOf: file))) as? [String: Any] ?? [:]
            guard let behavior = entry["behavior"] as? String, let behaviorClose = entry["behaviorClose"] as? String else {
                throw Failure(description: "case \(id) has no verdict")
            }
            return Case(
                id: id, behavior: behavior, behaviorClose: behaviorClose,
                result: detail["result"] as? String ?? "", resultClose: detail["resultClose"] as? String ?? "",
                received: "\(detail["received"] ?? [])")
        }.sorted { $0.id.compare($1.id, options: .numeric) == .orderedAscending }
    }

    /// Fails the test for every case whose verdict is not acceptable, and prints the NON-STRICT ones.
    func record(role: String, exitStatus: Int32) {
        for item in cases where !Self.acceptable.contains(item.behavior) || !Self.acceptable.contains(item.behaviorClose) {
            Issue.record("""
                Autobahn \(role) case \(item.id): \(item.behavior)/\(item.behaviorClose): \(item.result) \(item.resultClose) \
                received \(item.received)
                """)
        }
        for item in cases where item.behavior == "NON-STRICT" || item.behaviorClose == "NON-STRICT" {
            print("Autobahn \(role) case \(item.id) NON-STRICT: \(item.result) \(item.resultClose)")
        }
        #expect(exitStatus == 0, "kosoku reported failed cases (\(role))")
    }
}
