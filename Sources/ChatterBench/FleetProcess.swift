import ChildProcesses
import Foundation
import Synchronization

/// A set of echo bots under test, all in one process of their own: the Swift fleet (`chatter-bench fleet`, on
/// BotRuntime), the Python peer (`bench/python_peer/echo_peer.py`: asyncio, `websockets`, `sqlite3`) or the C floor
/// (`bench/c_floor/echo_floor.c`: epoll, SQLite's C API). All take the same configuration file and speak the same
/// line protocol, so every scenario drives them identically.
///
/// On stdout, one JSON object a line: `{"event":"boot"}` once loaded (its resident memory then is the baseline),
/// `{"event":"live","bot":i,"connection":k}` each time bot i is synced on its k-th connection,
/// `{"event":"acked","total":n}` in answer to an `acked` line on stdin, `{"event":"error","message":…}`.
/// On stdin: `start` (start every bot), `acked` (report acknowledged replies); end of input stops the bots
/// gracefully and the process exits.
final class FleetProcess: Sendable {
    /// What a fleet is given: the server, where the bots keep their files, and the bots.
    struct Configuration: Codable {
        struct Bot: Codable {
            var name: String
            var username: String
            var password: String
        }

        var apiURL: String
        var webSocketURL: String
        var clientKey: String
        var dataDirectory: String
        var bots: [Bot]
        /// Which receipts the Swift bots send: `both` (the runtime's default: delivered once stored, read once
        /// handled) or `read`. The Python peer sends `receipt.read` only (coalesced per conversation).
        var receipts: String? = nil
        /// After how long without use a Swift bot's store closes its database connection (reopened on the next
        /// use); nil keeps the runtime's default. The stores share one budget of open connections that fits the
        /// process's open-file limit next to one socket per bot.
        var storeIdleSeconds: Double? = nil
        /// Whether the Swift fleet has SQLite count its memory, for the `memory` command (it costs every SQLite
        /// allocation a process-wide mutex, so only the bots scenario asks for it, with `--sqlite-memory`).
        var countsSQLiteMemory: Bool? = nil
        /// Whether the Swift fleet marks its handlers' work in the in-flight table, as `example-bots run` does (the
        /// default); false only to measure what the marks cost.
        var marksInFlightWork: Bool? = nil
        /// How the Python peer commits: `group` (everything read since its last transaction in one, the default)
        /// or `each` (each message and each ack in a transaction of its own). The C floor always commits what one
        /// wake-up of its loop read in one transaction.
        var commit: String? = nil
    }

    /// Which runtime runs the bots.
    enum Runtime: String, Sendable, CaseIterable {
        case swift
        case python
        /// The floor: plain C on the same sockets and SQLite (`bench/c_floor/echo_floor.c`), built on first use.
        case c
    }

    private struct Report: Decodable {
        var event: String
        var bot: Int?
        var connection: Int?
        var total: Int?
        var message: String?
        var sqlite: Int?
        var heapInUse: Int?
        var storesOpen: Int?
        var evictions: Int?
    }

    private struct Progress {
        var booted = false
        var liveConnection: [Int: Int] = [:]
        var acked = 0
        var ackedReports = 0
        var errors = 0
        var memory: MemoryReport?
    }

    /// The Swift fleet's account of its memory (`memory` command): the C heap in use, its open stores, and what
    /// SQLite has allocated when it counts.
    struct MemoryReport: Sendable {
        /// Nil unless the fleet counts SQLite's memory (`--sqlite-memory`).
        var sqliteBytes: Int?
        /// The C heap in use, SQLite's included; the rest of the resident memory is free heap and code.
        var heapInUseBytes: Int?
        /// Stores whose database connection is open (the rest are dormant).
        var storesOpen: Int?
        /// Store connections closed to make room for another under the budget of open connections.
        var evictions: Int?
    }

    let runtime: Runtime
    private let child: ChildProcess
    private let progress = Mutex(Progress())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    var pid: Int32 { child.pid }
    /// Whether the fleet's process is still running (it ends only when told to, or when it crashed).
    var isRunning: Bool { !child.hasExited }

    /// Starts the fleet process of `runtime` with `bots`; they wait for `start()`.
    init(
        _ runtime: Runtime, command: [String], bots: [BenchWorld.Bot], password: String, endpoint: ServerEndpoint,
        dataDirectory: URL, receipts: String? = nil, storeIdleSeconds: Double? = nil, countsSQLiteMemory: Bool = false,
        marksInFlightWork: Bool = true, pythonCommit: String? = nil
    ) throws {
        self.runtime = runtime
        let configuration = Configuration(
            apiURL: endpoint.apiURL.absoluteString, webSocketURL: endpoint.webSocketURL.absoluteString,
            clientKey: endpoint.clientKey, dataDirectory: dataDirectory.path,
            bots: bots.map { Configuration.Bot(name: $0.username, username: $0.username, password: password) },
            receipts: receipts, storeIdleSeconds: storeIdleSeconds, countsSQLiteMemory: countsSQLiteMemory,
            marksInFlightWork: marksInFlightWork, commit: pythonCommit)
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let configurationURL = dataDirectory.appendingPathComponent("peer.json")
        try JSONEncoder().encode(configuration).write(to: configurationURL)
        child = try ChildProcess(command + [configurationURL.path])
        let child = child
        reader.withLock {
            $0 = Task {
                while let line = try? await child.nextLine(timeout: nil) { self.consume(line) }
            }
        }
    }

    private func consume(_ line: String) {
        guard let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8)) else { return }
        let shown = progress.withLock { progress -> Bool in
            switch report.event {
            case "boot":
                progress.booted = true
            case "live":
                if let bot = report.bot, let connection = report.connection {
                    progress.liveConnection[bot] = max(progress.liveConnection[bot] ?? 0, connection)
                }
            case "acked":
                progress.acked = max(progress.acked, report.total ?? 0)
                progress.ackedReports += 1
            case "memory":
                progress.memory = MemoryReport(
                    sqliteBytes: report.sqlite, heapInUseBytes: report.heapInUse, storesOpen: report.storesOpen, evictions: report.evictions)
            case "error":
                progress.errors += 1
                return progress.errors <= 5
            default:
                break
            }
            return false
        }
        if shown {
            FileHandle.standardError.write(Data("\(runtime) fleet: \(report.message ?? line)\n".utf8))
        }
    }

    /// Waits until the fleet process has loaded (its resident memory before any bot is the baseline).
    func waitUntilBooted(timeout: Duration = .seconds(30)) async throws {
        let start = ContinuousClock.now
        while !progress.withLock({ $0.booted }) {
            guard !child.hasExited, ContinuousClock.now - start < timeout else {
                throw BenchFailure("the \(runtime) fleet did not start (for Python: pip install -r bench/requirements.txt)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Starts every bot once the process has loaded (within `bootTimeout`); returns at once (they are starting, not
    /// live).
    func start(bootTimeout: Duration = .seconds(30)) async throws {
        try await waitUntilBooted(timeout: bootTimeout)
        child.send(line: "start")
    }

    /// How many bots are live (signed in, connected, synced) on at least their `connection`-th connection.
    func liveCount(connection: Int) -> Int {
        progress.withLock { progress in progress.liveConnection.values.count { $0 >= connection } }
    }

    /// Asks the fleet how many replies its bots have marked acknowledged, and waits for the answer.
    func ackedCount() async -> Int {
        let before = progress.withLock { $0.ackedReports }
        child.send(line: "acked")
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(10) {
            let (reports, acked) = progress.withLock { ($0.ackedReports, $0.acked) }
            if reports > before { return acked }
            if child.hasExited { break }
            try? await Task.sleep(for: .microseconds(200))
        }
        return progress.withLock { $0.acked }
    }

    /// Asks the Swift fleet where its memory goes; nil from the Python peer (it does not know the command).
    func memoryReport() async -> MemoryReport? {
        guard runtime == .swift else { return nil }
        progress.withLock { $0.memory = nil }
        child.send(line: "memory")
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(5) {
            if let memory = progress.withLock({ $0.memory }) { return memory }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Errors the fleet reported.
    var errorCount: Int { progress.withLock { $0.errors } }

    /// Waits until `count` bots are live on their `connection`-th connection; returns the seconds it took, or nil
    /// after `timeout`.
    func waitUntilLive(_ count: Int, connection: Int = 1, timeout: Duration) async -> Double? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if liveCount(connection: connection) >= count { return (ContinuousClock.now - start).seconds }
            if child.hasExited { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Waits until the bots have marked `count` replies acknowledged; false after `timeout`.
    func waitUntilAcked(_ count: Int, timeout: Duration) async -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if await ackedCount() >= count { return true }
            if child.hasExited { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    /// Runs `body`; if it throws, stops the fleet's process before passing the error on, so that a failed
    /// scenario leaves no fleet running.
    func stoppingOnError<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            await stop()
            throw error
        }
    }

    /// Stops every bot gracefully (end of stdin) and waits until the process has exited.
    func stop() async {
        await child.finish(within: .seconds(20))
        let task = reader.withLock { $0 }
        await task?.value
    }
}
