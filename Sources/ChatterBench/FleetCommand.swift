import BotRuntime
import CSQLite
import ChatterBots
import Foundation
import SQLite
import Synchronization
import WebSocket

#if canImport(Glibc)
import Glibc
#endif

/// `chatter-bench fleet <config.json>`: the Swift side of every scenario, in a process of its own like the Python
/// peer, speaking the same line protocol (see `FleetProcess`). One `BotSession` per bot, all run by a
/// `BotSupervisor`, as `example-bots run` runs them; the runtime's log tells when a bot is live.
struct FleetCommand {
    var configurationPath: String

    func run() async -> Int32 {
        let configuration: FleetProcess.Configuration
        do {
            configuration = try JSONDecoder().decode(
                FleetProcess.Configuration.self, from: Data(contentsOf: URL(fileURLWithPath: configurationPath)))
        } catch {
            FileHandle.standardError.write(Data("chatter-bench fleet: cannot read \(configurationPath): \(error)\n".utf8))
            return 1
        }
        guard let apiURL = URL(string: configuration.apiURL), let webSocketURL = URL(string: configuration.webSocketURL) else {
            FileHandle.standardError.write(Data("chatter-bench fleet: the server URLs do not parse\n".utf8))
            return 1
        }
        // Before the first store opens: SQLite decides once whether it counts its memory.
        if configuration.countsSQLiteMemory == true { SQLiteMemoryStatistics.enable() }
        ProcessProbe.raiseOpenFileLimit(to: 1 << 20)
        // The shared event loops start on first use and cannot start without descriptors: start them now, before
        // thousands of stores take every descriptor the process may open.
        do throws(WebSocketError) {
            try EventLoopGroup.shared.start()
        } catch {
            FileHandle.standardError.write(Data("chatter-bench fleet: \(error)\n".utf8))
            return 1
        }
        let reporter = FleetReporter(botNames: configuration.bots.map(\.name))
        reporter.emit(["event": "boot"])

        let commands = StdinCommands()
        guard await commands.next() == "start" else { return 0 }

        // CHATTER_BENCH_FLEET_LOG=PATH also writes the runtime's whole log (info and up) to PATH: every bot's
        // connects, closes and reconnect waits, to see where a scenario's time goes.
        let trace = ProcessInfo.processInfo.environment["CHATTER_BENCH_FLEET_LOG"].flatMap { path -> FileDescriptorLogOutput? in
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            return fd >= 0 ? FileDescriptorLogOutput(fileDescriptor: fd, label: path) : nil
        }
        let traceFormatter = LogfmtFormatter()
        var environment = BotRuntimeEnvironment(
            server: ChatterServerConfiguration(apiBaseURL: apiURL, webSocketURL: webSocketURL, clientKey: configuration.clientKey),
            dataDirectory: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true),
            logSink: LogSink(minimumLevel: .info) { record in
                reporter.observe(record)
                trace?.write(line: traceFormatter.format(record))
            })
        // One socket per bot, plus the process's own descriptors; every store connection left takes three.
        let storeBudget = ConnectionBudget.fittingOpenFileLimit(reservedDescriptors: configuration.bots.count + 512)
        if let seconds = configuration.storeIdleSeconds, seconds > 0 {
            // The runtime's policy (statements and pages freed after 10 s idle) with the bench's idle timeout.
            var dormancy = environment.storeDormancy ?? DatabaseDormancy(idleTimeout: .seconds(30))
            dormancy.idleTimeout = .milliseconds(Int(seconds * 1000))
            environment.storeDormancy = dormancy
        }
        environment.storeDormancy?.budget = storeBudget
        // Start-up and reconnects in waves (half the store budget, 64 at most), so starting bots evict idle stores, not
        // each other's, and the start-up peak stays small.
        environment.startupGate = StartupGate(fitting: storeBudget)
        environment.makeThreads = MakeThreads(fitting: environment.startupGate)
        if configuration.marksInFlightWork ?? true {
            do {
                environment.inFlightTable = try await CrashRecovery.prepare(
                    dataDirectory: environment.dataDirectory, bots: configuration.bots.map(\.name), log: environment.logSink)
            } catch {
                FileHandle.standardError.write(Data("chatter-bench fleet: \(error)\n".utf8))
                return 1
            }
        }
        // As `"receipts": "read"` in bots.json when asked; else the runtime's default, both receipts.
        let receipts = configuration.receipts == "read" ? ReceiptPolicy(sendsDelivered: false, sendsRead: true) : nil
        let sessions = configuration.bots.map { bot in
            BotSession(
                member: BotLineup.Member(
                    configuration: BotConfiguration(
                        name: bot.name, kind: EchoBenchBot.kind.name,
                        credentials: BotCredentials(username: bot.username, password: bot.password),
                        // As `"sendPacing": "off"` in bots.json: the bench measures the runtime, not the pacer.
                        friendRequests: .nobody, sendPacing: nil, receipts: receipts),
                    kind: EchoBenchBot.kind),
                environment: environment)
        }
        // The sessions report their own errors through the reporter; the supervisor would repeat each one.
        let supervisor = BotSupervisor(bots: sessions, log: LogSink(minimumLevel: .critical))
        let running = Task { _ = await supervisor.run() }

        while let command = await commands.next() {
            switch command {
            case "acked":
                var total = 0
                for session in sessions { total += await session.status.messagesOut }
                reporter.emit(["event": "acked", "total": total])
            case "memory":
                // Where the resident memory goes: SQLite's own allocations (page caches, schemas, statements), and
                // the C heap in use (the rest of the resident memory is heap the allocator holds free, and code).
                // Counts that are not kept (SQLite's, unless asked for) are left out rather than sent as null.
                var report: [String: any Sendable] = [
                    "event": "memory", "storesOpen": storeBudget.openCount, "evictions": storeBudget.evictionCount,
                ]
                report["sqlite"] = SQLiteMemoryStatistics.bytesInUse
                report["heapInUse"] = Self.heapInUse
                reporter.emit(report)
            default:
                reporter.emit(["event": "error", "message": "unknown command \(command)"])
            }
        }
        await supervisor.shutdown(deadline: .seconds(10))
        await running.value
        reporter.flush()
        await trace?.flush()
        return 0
    }

    /// Bytes of the C heap in use (glibc's `mallinfo2`, every arena); nil where there is no such count.
    private static var heapInUse: Int? {
        #if canImport(Glibc)
        Int(mallinfo2().uordblks)
        #else
        nil
        #endif
    }
}

/// Turns the runtime's log into the fleet protocol's events: `live` records become `live` events (counting each
/// bot's connections), errors become `error` events. Lines go out on a serial queue, so the sessions never wait;
/// the lines emitted while a write is pending join it, so that a fleet starting does not wake the queue once a bot.
final class FleetReporter: Sendable {
    private let indexByName: [String: Int]
    private let connections: Mutex<[Int]>
    private let queue = DispatchQueue(label: "fleet stdout")
    /// Lines not yet handed to the queue; nil when no write is pending.
    private let pending = Mutex<Data?>(nil)
    private let output: FileHandle

    init(botNames: [String], output: FileHandle = .standardOutput) {
        self.output = output
        var indexByName: [String: Int] = [:]
        for (index, name) in botNames.enumerated() { indexByName[name] = index }
        self.indexByName = indexByName
        self.connections = Mutex(Array(repeating: 0, count: botNames.count))
    }

    func observe(_ record: LogRecord) {
        if record.message == "live", let bot = record.bot, let index = indexByName[bot] {
            let connection = connections.withLock { counts -> Int in
                counts[index] += 1
                return counts[index]
            }
            // Formatted here: `JSONSerialization` bridges the dictionary, the costliest part of an event, in the
            // process the bench measures.
            emitLine(#"{"event":"live","bot":\#(index),"connection":\#(connection)}"#.utf8)
        } else if record.level >= .error {
            emit(["event": "error", "message": "\(record.bot ?? "-"): \(record.message) \(record.fields)"])
        }
    }

    func emit(_ object: [String: any Sendable]) {
        guard let encoded = try? JSONSerialization.data(withJSONObject: object) else { return }
        emitLine(encoded)
    }

    /// Queues `line`, one JSON object in UTF-8, for stdout.
    private func emitLine(_ line: some Sequence<UInt8>) {
        let startsWrite = pending.withLock { pending -> Bool in
            var lines = pending.take() ?? Data()
            let starts = lines.isEmpty
            lines.append(contentsOf: line)
            lines.append(UInt8(ascii: "\n"))
            pending = lines
            return starts
        }
        guard startsWrite else { return }
        queue.async { [self] in writePending() }
    }

    /// Waits until every line emitted so far is written: it writes what no queued write has taken yet itself,
    /// since the emitter that will queue that write may not have done so yet.
    func flush() {
        queue.sync { writePending() }
    }

    /// Writes the lines emitted since the last write; on the queue.
    private func writePending() {
        if let lines = pending.withLock({ $0.take() }) { output.write(lines) }
    }
}

/// The lines of stdin, read on a thread of its own; `next()` returns nil at end of input.
actor StdinCommands {
    private var iterator: AsyncStream<String>.Iterator

    init() {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.iterator = lines.makeAsyncIterator()
        let reader = Thread {
            while let line = readLine() { continuation.yield(line.trimmingCharacters(in: .whitespaces)) }
            continuation.finish()
        }
        reader.start()
    }

    func next() async -> String? {
        var iterator = self.iterator
        let line = await iterator.next(isolation: self)
        self.iterator = iterator
        return line
    }
}
