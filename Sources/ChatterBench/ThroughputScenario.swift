import Foundation

/// Throughput: one echo bot, its full durable path per message (dedupe record, outbox entry, `message.send`, ack
/// marked), flooded by several senders, each keeping a window of messages in flight. The figure is messages
/// handled and acknowledged per second: from the first measured send until every reply has reached its sender
/// AND the bot has marked every reply acknowledged in its store.
struct ThroughputScenario {
    let context: BenchContext

    struct Measurement {
        var messages: Int
        var seconds: Double
        var serverCPU: Double
        var fleetCPU: Double
        var driverCPU: Double
        var duplicateReplies: Int
        var sendErrors: Int
        var fleetErrors: Int
        /// The machine's CPU time stolen by its hypervisor meanwhile (share of all cores).
        var steal: Double

        var rate: Double { Double(messages) / seconds }

        /// The shortest measured interval whose rate is steady: shorter floods end before the runtimes' costs
        /// settle (bench/README.md, "Issue 22, eighth pass").
        static let steadyInterval = 2.0

        /// A note for a flood measured over less than ``steadyInterval``, with the number of messages that would
        /// last that long at the rate seen (an estimate: a longer flood's rate differs); nil for a long enough one.
        func shortIntervalNote(runtime: String) -> String? {
            guard seconds < Self.steadyInterval else { return nil }
            let enough = Int((Double(messages) * Self.steadyInterval / max(seconds, 0.001)).rounded(.up))
            let suggested = (enough + 9_999) / 10_000 * 10_000
            // Cut, not rounded, so that 1.996 s does not read as 2.00.
            let shown = String(format: "%.2f", (seconds * 100).rounded(.down) / 100)
            return "\(runtime): measured over \(shown) s, too short for a steady rate; --messages \(suggested) would "
                + "last about \(Int(Self.steadyInterval)) s at this rate (a longer flood's rate differs: try more)."
        }
    }

    func run() async throws -> BenchReport {
        let spec = BenchContext.echoWorld(prefix: "tp", runtimes: context.options.runtimes, senders: context.options.senders)
        let machine = MachineDescription.current()
        let (measurements, server) = try await context.measureEachRuntime(spec, name: "throughput") { runtime, bot, server in
            try await measure(runtime, bot: bot, server: server)
        }
        return report(measurements, machine: machine, server: server)
    }

    private func measure(_ runtime: FleetProcess.Runtime, bot: Int, server: ServerProcess) async throws -> Measurement {
        let options = context.options
        let (fleet, world) = try await context.startLiveBot(runtime, bot: bot, server: server, name: "throughput-\(runtime)")
        let links = world.links.filter { $0.bot == bot }
        let senders = links.count
        let warmup = options.warmup / senders
        let perSender = max(1, options.messages / senders)
        let total = (warmup + perSender) * senders
        let serverCPU: CPUMeter
        let fleetCPU: CPUMeter
        let driverCPU: CPUMeter
        let steal: StealMeter
        let start: ContinuousClock.Instant
        var replied = false
        var duplicates = 0
        var sendErrors = 0
        var replies = 0
        switch options.server {
        case .load:
            // The load server's virtual senders flood the bot from inside the server process.
            let conversations = links.map(\.conversationId)
            _ = try await FloodRequest(
                conversations: conversations, count: warmup, firstNumber: 0, window: options.window, burst: options.burst, timeoutSeconds: 120
            ).run(against: server.endpoint)
            _ = await fleet.waitUntilAcked(warmup * senders, timeout: .seconds(60))
            serverCPU = CPUMeter(pid: server.pid)
            fleetCPU = CPUMeter(pid: fleet.pid)
            driverCPU = CPUMeter()
            steal = StealMeter()
            start = ContinuousClock.now
            let result = try await FloodRequest(
                conversations: conversations, count: perSender, firstNumber: warmup, window: options.window, burst: options.burst,
                timeoutSeconds: 600
            ).run(against: server.endpoint)
            replies = warmup * senders + result.replies
            replied = result.replies == result.sent
            duplicates = result.duplicateReplies
        case .sandbox:
            let pool = try await SenderPool.connect(world: world, links: links, endpoint: server.endpoint, window: options.window)
            for sender in pool.senders { sender.reserve(warmup + perSender) }
            // Warm-up: connections, caches and the server's statements, not measured.
            await pool.flood(0..<warmup)
            _ = await pool.waitForReplies(warmup * senders, timeout: .seconds(120))
            _ = await fleet.waitUntilAcked(warmup * senders, timeout: .seconds(60))
            serverCPU = CPUMeter(pid: server.pid)
            fleetCPU = CPUMeter(pid: fleet.pid)
            driverCPU = CPUMeter()
            steal = StealMeter()
            start = ContinuousClock.now
            await pool.flood(warmup..<(warmup + perSender))
            replied = await pool.waitForReplies(total, timeout: .seconds(600))
            replies = pool.replies
            duplicates = pool.senders.reduce(0) { $0 + $1.snapshot.duplicateReplies }
            sendErrors = pool.senders.reduce(0) { $0 + $1.snapshot.errors }
            await pool.close()
        }
        let acked = await fleet.waitUntilAcked(total, timeout: .seconds(120))
        let seconds = (ContinuousClock.now - start).seconds
        let measurement = Measurement(
            messages: perSender * senders, seconds: seconds, serverCPU: serverCPU.coreShare,
            fleetCPU: fleetCPU.coreShare, driverCPU: driverCPU.coreShare, duplicateReplies: duplicates,
            sendErrors: sendErrors, fleetErrors: fleet.errorCount, steal: steal.share)
        await fleet.stop()
        guard replied && acked else {
            throw BenchFailure(
                "the \(runtime) bot answered \(replies) of \(total) messages (all acknowledged: \(acked)); see the errors above")
        }
        return measurement
    }

    private func report(
        _ measurements: [FleetProcess.Runtime: Measurement], machine: MachineDescription, server: ServerProcess
    ) -> BenchReport {
        func values(_ value: (Measurement) -> Double) -> [String: Double] {
            var out: [String: Double] = [:]
            for (runtime, measurement) in measurements { out[runtime.rawValue] = value(measurement) }
            return out
        }
        let swift = measurements[.swift]?.rate
        let python = measurements[.python]?.rate
        var figures = [
            Figure(
                "handled and acked", unit: "msg/s", values { $0.rate }, goal: "≥ 20,000",
                met: swift.map { $0 >= 20_000 }),
            Figure("messages", unit: "count", values { Double($0.messages) }),
            Figure("elapsed", unit: "s", values { $0.seconds }),
            Figure("server CPU", unit: "% core", values { $0.serverCPU * 100 }),
            Figure("bot process CPU", unit: "% core", values { $0.fleetCPU * 100 }),
            Figure("driver (senders) CPU", unit: "% core", values { $0.driverCPU * 100 }),
            Figure("bot CPU per message", unit: "µs", values { $0.fleetCPU * $0.seconds / Double($0.messages) * 1e6 }),
            Figure("CPU stolen by the host", unit: "% machine", values { $0.steal * 100 }),
            Figure("server CPU per message", unit: "µs", values { $0.serverCPU * $0.seconds / Double($0.messages) * 1e6 }),
            Figure("duplicate replies", unit: "count", values { Double($0.duplicateReplies) }),
            Figure("errors", unit: "count", values { Double($0.sendErrors + $0.fleetErrors) }),
        ]
        if let swift, let python {
            figures.insert(
                Figure("swift ÷ python", unit: "×", ["swift": swift / python], goal: "≥ 4×", met: swift / python >= 4), at: 1)
        }
        var notes = [
            context.options.server == .load
                ? "Senders: the load server's virtual senders (people inside the server process, one conversation "
                    + "each, no sockets of their own), each with at most \(context.options.window) messages without a reply, "
                    + (context.options.burst == 1
                        ? "each message in a write of its own." : "up to \(context.options.burst) of them in one write.")
                : "Senders: people on realtime sockets of their own in the driver, each with at most "
                    + "\(context.options.window) messages without a reply.",
            "\(context.options.warmup) warm-up messages precede the measured ones. The time runs from the first "
                + "measured send until every reply is stored by the server and marked acknowledged by the bot.",
            "Each process's CPU is its user+system time over the measured interval, as a share of one core "
                + "(\(machine.cores) cores in all).",
        ]
        for (runtime, measurement) in measurements.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            notes.append("\(runtime): " + Bottleneck.describe(
                server: measurement.serverCPU, fleet: measurement.fleetCPU, driver: measurement.driverCPU,
                cores: machine.cores))
            if let note = measurement.shortIntervalNote(runtime: runtime.rawValue) { notes.append(note) }
        }
        return BenchReport(
            scenario: "throughput", date: BenchDefaults.now(), machine: machine,
            server: context.serverDescription(server.endpoint),
            parameters: [
                "messages": "\(context.options.messages)", "senders": "\(context.options.senders)",
                "window": "\(context.options.window)",
                "burst": "\(context.options.burst)",
            ],
            figures: figures, notes: notes)
    }
}

/// Which process limited a run, judged from CPU shares: a process near a full core (or the machine near all its
/// cores) is the bottleneck.
enum Bottleneck {
    static func describe(server: Double, fleet: Double, driver: Double, cores: Int) -> String {
        let total = server + fleet + driver
        let shares = String(format: "server %.0f%%, bots %.0f%%, driver %.0f%% of a core", server * 100, fleet * 100, driver * 100)
        if total >= Double(cores) * 0.9 {
            let busiest = [("the server", server), ("the bot process", fleet), ("the driver", driver)].max { $0.1 < $1.1 }
            return "the machine's \(cores) cores were saturated (\(shares)); \(busiest?.0 ?? "?") used the most"
        }
        if server >= 0.9 && server >= fleet { return "bottleneck: the server, at a full core (\(shares))" }
        if fleet >= 0.9 { return "bottleneck: the bot process (\(shares))" }
        return "no process saturated (\(shares)): latency-bound (round trips per message)"
    }
}

/// Values every scenario shares.
enum BenchDefaults {
    /// The password of every bench account (the sandbox wants 8 characters or more).
    static let password = "bench-password"

    static func now() -> String {
        ISO8601DateFormatter().string(from: Date())
    }
}
