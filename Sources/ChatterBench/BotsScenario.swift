import Foundation

/// Bots per process: N echo bots in one process, each with one conversation holding one unanswered message. The
/// figures: the time from starting them until every bot is signed in, connected and synced (its REST refresh and
/// `sync.request` done); resident memory per bot (VmRSS of the bots' process once live, minus VmRSS of that
/// process before any bot, over N); and CPU while idle (heartbeats running) over `--idle-seconds`.
struct BotsScenario {
    let context: BenchContext

    struct Measurement {
        var bots: Int
        var readySeconds: Double?
        /// CPU seconds the bots' process and the server used from the start until every bot was live.
        var startCPUSeconds: Double
        var serverStartCPUSeconds: Double
        var live: Int
        var baselineBytes: Int
        var residentBytes: Int
        /// VmRSS at the end of the idle interval.
        var idleResidentBytes: Int
        var idleCPUShare: Double
        var idleSeconds: Double
        var serverIdleCPUShare: Double
        var openFiles: Int
        /// Open descriptors at the end of the idle interval (dormant stores hold none).
        var idleOpenFiles: Int
        var answered: Int
        var errors: Int
        var memory: FleetProcess.MemoryReport?
        var idleMemory: FleetProcess.MemoryReport?
        /// False when the fleet's process ended during the run (a crash): its probes then read nothing.
        var survived: Bool
        /// The same bots in a new process on the stores the first one left (`--restart`).
        var restart: Restart?

        /// Per bot that runs (the live ones: a bot that could not start holds next to nothing).
        var bytesPerBot: Double? { live > 0 && survived ? Double(residentBytes - baselineBytes) / Double(live) : nil }
        var idleBytesPerBot: Double? { live > 0 && survived ? Double(idleResidentBytes - baselineBytes) / Double(live) : nil }
        /// CPU milliseconds per live bot per minute while idle.
        var idleCPUPerBotPerMinute: Double? { live > 0 && survived ? idleCPUShare * 60_000 / Double(live) : nil }
    }

    /// The bots' second process, started on the first one's stores once it has stopped, as after a deployment: the
    /// bots sign in with their stored sessions and sync, and each waiting message must still have exactly one reply
    /// in the server's store.
    struct Restart {
        /// Seconds from the start until every bot was live again; nil if not all were within the timeout.
        var readySeconds: Double?
        var live: Int
        /// Waiting messages without a reply in the server's store, after up to 30 s for late ones.
        var lost: Int
        /// Waiting messages with two or more replies (or stored twice).
        var duplicated: Int
        var errors: Int
    }

    func run() async throws -> BenchReport {
        let options = context.options
        let machine = MachineDescription.current()
        var measurements: [(Int, [FleetProcess.Runtime: Measurement])] = []
        var serverText = ""
        var notes: [String] = []
        for count in options.bots {
            let runtimes = options.runtimes
            let people = max(1, count / 100)
            let spec = WorldSpec(
                botUsernames: runtimes.flatMap { runtime in (0..<count).map { "bot\(runtime.rawValue.prefix(1))\(count)_\($0)" } },
                personUsernames: (0..<people).map { "person\(count)_\($0)" }, password: BenchDefaults.password,
                links: (0..<(count * runtimes.count)).map { WorldSpec.Link(person: $0 % people, bot: $0, waitingMessages: 1) })
            let server = try await context.startServer(
                spec, name: "bots-\(count)", heartbeatMilliseconds: options.heartbeatMilliseconds)
            serverText = context.serverDescription(server.endpoint)
            notes.append(String(format: "%d bots: the server built the world (%d accounts) in %.1f s", count,
                                spec.botUsernames.count + people, server.announcement.setupSeconds))
            var results: [FleetProcess.Runtime: Measurement] = [:]
            do {
                for (index, runtime) in runtimes.enumerated() {
                    results[runtime] = try await measure(runtime, count: count, offset: index * count, server: server)
                }
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
            measurements.append((count, results))
        }
        return report(measurements, machine: machine, server: serverText, notes: notes)
    }

    private func measure(
        _ runtime: FleetProcess.Runtime, count: Int, offset: Int, server: ServerProcess
    ) async throws -> Measurement {
        guard let world = server.announcement.world else { throw BenchFailure("no world") }
        let bots = Array(world.bots[offset..<(offset + count)])
        let dataName = "bots-\(count)-\(runtime)"
        let fleet = try await context.fleet(
            runtime, bots: bots, world: world, endpoint: server.endpoint, name: dataName,
            countsSQLiteMemory: context.options.countsSQLiteMemory)
        let timeout = Duration.seconds(60 + count / 50)
        var measurement = try await fleet.stoppingOnError {
            try await fleet.waitUntilBooted()
            try await Task.sleep(for: .milliseconds(200))
            let baseline = ProcessProbe.residentBytes(of: fleet.pid) ?? 0
            let startCPU = CPUMeter(pid: fleet.pid)
            let serverStartCPU = CPUMeter(pid: server.pid)
            try await fleet.start()
            let ready = await fleet.waitUntilLive(count, timeout: timeout)
            let (startCPUSeconds, serverStartCPUSeconds) = (startCPU.cpuSeconds, serverStartCPU.cpuSeconds)
            let live = fleet.liveCount(connection: 1)
            // Let the replies to the waiting messages and the first receipts go out before measuring memory and idling.
            _ = await fleet.waitUntilAcked(live, timeout: .seconds(30))
            try await Task.sleep(for: .seconds(2))
            let resident = ProcessProbe.residentBytes(of: fleet.pid) ?? 0
            let openFiles = ProcessProbe.openFileCount(of: fleet.pid) ?? 0
            let memory = await fleet.memoryReport()
            // Idle is measured once the stores have gone dormant (issue 22's definition): their closing is start-up's
            // tail, not what an idle bot costs. Every runtime waits the same.
            if let storeIdle = context.options.storeIdleSeconds, storeIdle > 0 {
                try await Task.sleep(for: .milliseconds(Int((storeIdle + 2) * 1000)))
            }
            let idle = CPUMeter(pid: fleet.pid)
            let serverIdle = CPUMeter(pid: server.pid)
            try await Task.sleep(for: .seconds(context.options.idleSeconds))
            return Measurement(
                bots: count, readySeconds: ready, startCPUSeconds: startCPUSeconds, serverStartCPUSeconds: serverStartCPUSeconds,
                live: live, baselineBytes: baseline, residentBytes: resident,
                idleResidentBytes: ProcessProbe.residentBytes(of: fleet.pid) ?? 0,
                idleCPUShare: idle.coreShare, idleSeconds: idle.elapsedSeconds, serverIdleCPUShare: serverIdle.coreShare,
                openFiles: openFiles, idleOpenFiles: ProcessProbe.openFileCount(of: fleet.pid) ?? 0,
                answered: await fleet.ackedCount(), errors: fleet.errorCount, memory: memory,
                idleMemory: await fleet.memoryReport(), survived: fleet.isRunning)
        }
        await fleet.stop()
        if context.options.measuresRestart {
            let links = world.links.filter { $0.bot >= offset && $0.bot < offset + count }
            measurement.restart = try await measureRestart(
                runtime, bots: bots, links: links, world: world, server: server, dataName: dataName, timeout: timeout)
        }
        return measurement
    }

    /// Starts `bots` again in a new process on the stores in `dataName` (the first process has stopped), and reads
    /// back from the server's store that every waiting message has exactly one reply.
    private func measureRestart(
        _ runtime: FleetProcess.Runtime, bots: [BenchWorld.Bot], links: [BenchWorld.Link], world: BenchWorld,
        server: ServerProcess, dataName: String, timeout: Duration
    ) async throws -> Restart {
        let fleet = try await context.fleet(
            runtime, bots: bots, world: world, endpoint: server.endpoint, name: dataName, keepsData: true)
        let restart = try await fleet.stoppingOnError {
            try await fleet.start()
            let ready = await fleet.waitUntilLive(bots.count, timeout: timeout)
            let live = fleet.liveCount(connection: 1)
            // Room for a reply that should not be sent (a message handled again, an acknowledged entry sent again),
            // and for one the first process left unsent; then the server's store says which happened.
            try await Task.sleep(for: .seconds(2))
            let counts = try await ReplyAudit(world: world, links: links, endpoint: server.endpoint)
                .countOnceSettled(waitingAtMost: .seconds(30))
            return Restart(
                readySeconds: ready, live: live, lost: counts.lost, duplicated: counts.duplicated, errors: fleet.errorCount)
        }
        await fleet.stop()
        return restart
    }

    private func report(
        _ measurements: [(Int, [FleetProcess.Runtime: Measurement])], machine: MachineDescription, server: String,
        notes extraNotes: [String]
    ) -> BenchReport {
        var figures: [Figure] = []
        for (count, results) in measurements {
            func values(_ value: (Measurement) -> Double?) -> [String: Double] {
                var out: [String: Double] = [:]
                for (runtime, measurement) in results { out[runtime.rawValue] = value(measurement) }
                return out
            }
            let swift = results[.swift]
            let readyGoal = count <= 1_000 ? "≤ 10 s" : nil
            figures += [
                Figure("\(count) bots: live (ready + synced)", unit: "bots", values { Double($0.live) },
                       goal: "all \(count)", met: swift.map { $0.live == count }),
                Figure("\(count) bots: time to all live", unit: "s", values { $0.readySeconds },
                       goal: readyGoal, met: readyGoal == nil ? nil : swift.map { ($0.readySeconds ?? .infinity) <= 10 }),
                Figure("\(count) bots: start-up CPU per bot", unit: "ms",
                       values { $0.live > 0 ? $0.startCPUSeconds / Double($0.live) * 1_000 : nil }, goal: "≤ 2 ms",
                       met: swift.map { $0.live > 0 && $0.startCPUSeconds / Double($0.live) * 1_000 <= 2 }),
                Figure("\(count) bots: server CPU per bot at start-up", unit: "ms",
                       values { $0.live > 0 ? $0.serverStartCPUSeconds / Double($0.live) * 1_000 : nil }),
                Figure("\(count) bots: start-up CPU ÷ the server's", unit: "ratio",
                       values { $0.live > 0 && $0.serverStartCPUSeconds > 0 ? $0.startCPUSeconds / $0.serverStartCPUSeconds : nil }),
                Figure("\(count) bots: resident per live bot", unit: "KiB", values { $0.bytesPerBot.map { $0 / 1024 } },
                       goal: "≤ 200 KiB", met: swift.map { ($0.bytesPerBot ?? .infinity) <= 200 * 1024 }),
                Figure("\(count) bots: resident per live bot after idling", unit: "KiB",
                       values { $0.idleBytesPerBot.map { $0 / 1024 } }),
                Figure("\(count) bots: process resident", unit: "MiB",
                       values { $0.survived ? Double($0.residentBytes) / 1_048_576 : nil }),
                Figure("\(count) bots: SQLite memory per live bot", unit: "KiB",
                       values { m in m.live > 0 ? m.memory?.sqliteBytes.map { Double($0) / Double(m.live) / 1024 } : nil }),
                Figure("\(count) bots: SQLite memory per live bot after idling", unit: "KiB",
                       values { m in m.live > 0 ? m.idleMemory?.sqliteBytes.map { Double($0) / Double(m.live) / 1024 } : nil }),
                Figure("\(count) bots: C heap in use per live bot", unit: "KiB",
                       values { m in m.memory.flatMap { m.live > 0 ? $0.heapInUseBytes.map { Double($0) / Double(m.live) / 1024 } : nil } }),
                Figure("\(count) bots: C heap in use per live bot after idling", unit: "KiB",
                       values { m in m.idleMemory.flatMap { m.live > 0 ? $0.heapInUseBytes.map { Double($0) / Double(m.live) / 1024 } : nil } }),
                Figure("\(count) bots: stores open once live", unit: "stores",
                       values { m in m.memory?.storesOpen.map(Double.init) }),
                Figure("\(count) bots: stores open after idling", unit: "stores",
                       values { m in m.idleMemory?.storesOpen.map(Double.init) }),
                Figure("\(count) bots: store connections evicted by the budget", unit: "count",
                       values { m in m.idleMemory?.evictions.map(Double.init) }),
                Figure("\(count) bots: idle CPU, stores dormant", unit: "% core", values { $0.survived ? $0.idleCPUShare * 100 : nil }),
                Figure("\(count) bots: idle CPU per live bot", unit: "ms/min", values { $0.idleCPUPerBotPerMinute }),
                Figure("\(count) bots: server idle CPU", unit: "% core", values { $0.serverIdleCPUShare * 100 }),
                Figure("\(count) bots: open files per live bot", unit: "fds",
                       values { $0.live > 0 && $0.survived ? Double($0.openFiles) / Double($0.live) : nil }),
                Figure("\(count) bots: open files per live bot after idling", unit: "fds",
                       values { $0.live > 0 && $0.survived ? Double($0.idleOpenFiles) / Double($0.live) : nil }),
                Figure("\(count) bots: waiting messages answered", unit: "count", values { Double($0.answered) }),
                Figure("\(count) bots: errors reported", unit: "count", values { Double($0.errors) }),
            ]
            if results.values.contains(where: { $0.restart != nil }) {
                figures += [
                    Figure("\(count) bots: live again after a restart", unit: "bots", values { $0.restart.map { Double($0.live) } },
                           goal: "all \(count)", met: swift?.restart.map { $0.live == count }),
                    Figure("\(count) bots: time to all live after a restart", unit: "s", values { $0.restart?.readySeconds }),
                    Figure("\(count) bots: waiting messages without a reply after the restart", unit: "count",
                           values { $0.restart.map { Double($0.lost) } }, goal: "0", met: swift?.restart.map { $0.lost == 0 }),
                    Figure("\(count) bots: waiting messages answered twice after the restart", unit: "count",
                           values { $0.restart.map { Double($0.duplicated) } }, goal: "0",
                           met: swift?.restart.map { $0.duplicated == 0 }),
                    Figure("\(count) bots: errors reported after the restart", unit: "count",
                           values { $0.restart.map { Double($0.errors) } }),
                ]
            }
        }
        var notes = extraNotes
        for (count, results) in measurements {
            for (runtime, measurement) in results.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where !measurement.survived {
                notes.append("\(count) bots: the \(runtime) fleet's process ended during the run (a crash); its figures are left out.")
            }
        }
        notes.append(
            "Resident per live bot = (VmRSS of the bots' process once all are live − its VmRSS before the first bot) ÷ the live bots; "
                + "the server runs in its own process and is not counted.")
        notes.append(
            "Start-up CPU ÷ the server's: the server does the same work for every run of a scenario, so the ratio takes out "
                + "the machine's pace, which moves by a third between runs on a shared host; compare runs by it.")
        notes.append(
            "Idle CPU: user+system time of the bots' process over \(context.options.idleSeconds) s with the server's "
                + "heartbeat interval at \(context.options.heartbeatMilliseconds) ms, from 2 s after the stores went "
                + "dormant (--store-idle-seconds) on.")
        if !context.options.countsSQLiteMemory {
            notes.append("SQLite's memory is not counted: --sqlite-memory counts it, at the price of a lock SQLite then takes on every allocation (1,000 bots came up 15–25 % slower).")
        }
        #if os(Linux)
        notes.append(
            "Each bot creates three files. On ext4 without a journal, creating a file skips the inodes deleted in the "
                + "last 1–6 minutes one by one: right after a run deleted its stores, 1,000 bots came up 25 % slower. "
                + "Give TMPDIR a directory nothing was deleted from lately (bench/README.md).")
        #endif
        let limit = ProcessProbe.raiseOpenFileLimit(to: 1 << 20)
        notes.append("Open-file limit of each process: \(limit.soft) (hard \(limit.hard)).")
        return BenchReport(
            scenario: "bots", date: BenchDefaults.now(), machine: machine, server: server,
            parameters: [
                "bots": context.options.bots.map(String.init).joined(separator: ","),
                "idleSeconds": "\(context.options.idleSeconds)", "heartbeatMs": "\(context.options.heartbeatMilliseconds)",
                "storeIdleSeconds": context.options.storeIdleSeconds.map { "\($0)" } ?? "default",
                "sqliteMemory": "\(context.options.countsSQLiteMemory)", "restart": "\(context.options.measuresRestart)",
            ],
            figures: figures, notes: notes)
    }
}
