import Foundation

/// Latency: one echo bot under a fixed load (`--rate` messages per second in all, spread evenly over the senders
/// and paced on a schedule, not in bursts). Each latency is measured at the sender, from writing its
/// `message.send` to receiving the bot's reply as `message.new`: the whole round trip through the server twice
/// and the bot's durable path once. The first second is warm-up and not counted.
struct LatencyScenario {
    let context: BenchContext

    struct Measurement {
        var samples: LatencySamples
        var achievedRate: Double
        var serverCPU: Double
        var fleetCPU: Double
        /// The bots' process's thread context switches per message, voluntary and involuntary.
        var voluntarySwitches: Double
        var involuntarySwitches: Double
        var lost: Int
        var duplicates: Int
        /// The machine's CPU time stolen by its hypervisor meanwhile (share of all cores).
        var steal: Double
        /// Per message, when it was due to be sent (milliseconds from the start of the measured interval) and its
        /// latency (milliseconds; nil when lost): what `--latencies` writes, to tell a stall from spread.
        var timeline: [(dueMilliseconds: Double, latencyMilliseconds: Double?)]
    }

    func run() async throws -> BenchReport {
        let spec = BenchContext.echoWorld(prefix: "lat", runtimes: context.options.runtimes, senders: context.options.senders)
        let machine = MachineDescription.current()
        let (measurements, server) = try await context.measureEachRuntime(spec, name: "latency") { runtime, bot, server in
            try await measure(runtime, bot: bot, server: server)
        }
        if let path = context.options.latenciesPath {
            writeTimelines(measurements, to: path)
        }
        return report(measurements, machine: machine, server: server)
    }

    /// Writes every runtime's per-message latencies as CSV (`runtime,due_ms,latency_ms`, latency empty when lost),
    /// in the order the messages were due. A file that cannot be written is reported, and the run's report stands.
    private func writeTimelines(_ measurements: [FleetProcess.Runtime: Measurement], to path: String) {
        var csv = "runtime,due_ms,latency_ms\n"
        for (runtime, measurement) in measurements.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            for entry in measurement.timeline.sorted(by: { $0.dueMilliseconds < $1.dueMilliseconds }) {
                let latency = entry.latencyMilliseconds.map { String(format: "%.3f", $0) } ?? ""
                csv += "\(runtime.rawValue),\(String(format: "%.3f", entry.dueMilliseconds)),\(latency)\n"
            }
        }
        do {
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("chatter-bench: cannot write the latencies to \(path): \(error.localizedDescription)\n".utf8))
        }
    }

    private func measure(_ runtime: FleetProcess.Runtime, bot: Int, server: ServerProcess) async throws -> Measurement {
        let options = context.options
        let (fleet, world) = try await context.startLiveBot(runtime, bot: bot, server: server, name: "latency-\(runtime)")
        let links = world.links.filter { $0.bot == bot }
        let senders = links.count
        let perSenderRate = Double(options.rate) / Double(senders)
        let warmup = Int(perSenderRate.rounded(.up))
        let measured = max(1, Int((perSenderRate * options.seconds).rounded()))
        let interval = Duration.seconds(1 / perSenderRate)
        var samples = LatencySamples()
        var timeline: [(dueMilliseconds: Double, latencyMilliseconds: Double?)] = []
        var lost = 0
        var duplicates = 0
        let serverCPU: CPUMeter
        let fleetCPU: CPUMeter
        let fleetSwitches: ContextSwitchMeter
        /// How many messages the bots handled while the meters ran.
        let meteredMessages: Int
        let steal: StealMeter
        let sendingSeconds: Double
        switch options.server {
        case .load:
            let conversations = links.map(\.conversationId)
            let nanoseconds = UInt64(1e9 / perSenderRate)
            _ = try await FloodRequest(
                conversations: conversations, count: warmup, firstNumber: 0, window: 0, intervalNanoseconds: nanoseconds,
                timeoutSeconds: 30
            ).run(against: server.endpoint)
            serverCPU = CPUMeter(pid: server.pid)
            fleetCPU = CPUMeter(pid: fleet.pid)
            fleetSwitches = ContextSwitchMeter(pid: fleet.pid)
            meteredMessages = measured * senders
            steal = StealMeter()
            let result = try await FloodRequest(
                conversations: conversations, count: measured, firstNumber: warmup, window: 0,
                intervalNanoseconds: nanoseconds, timeoutSeconds: options.seconds + 30
            ).run(against: server.endpoint)
            sendingSeconds = options.seconds
            duplicates = result.duplicateReplies
            // Conversation-major; the load server's senders are offset evenly within one interval.
            let intervalMilliseconds = 1_000 / perSenderRate
            for (index, latency) in result.latencyNanoseconds.enumerated() {
                let (conversation, number) = index.quotientAndRemainder(dividingBy: max(1, measured))
                let due = (Double(number) + Double(conversation) / Double(senders)) * intervalMilliseconds
                timeline.append((due, latency == 0 ? nil : Double(latency) / 1e6))
                if latency == 0 { lost += 1 } else { samples.add(nanoseconds: latency) }
            }
        case .sandbox:
            // The window never binds at a fixed rate; it only bounds a bot that stops answering.
            let pool = try await SenderPool.connect(world: world, links: links, endpoint: server.endpoint, window: 100_000)
            for sender in pool.senders { sender.reserve(warmup + measured) }
            serverCPU = CPUMeter(pid: server.pid)
            fleetCPU = CPUMeter(pid: fleet.pid)
            fleetSwitches = ContextSwitchMeter(pid: fleet.pid)
            meteredMessages = (warmup + measured) * senders
            steal = StealMeter()
            let start = ContinuousClock.now
            await withTaskGroup(of: Void.self) { group in
                for (index, sender) in pool.senders.enumerated() {
                    // Senders are offset within one interval so that the load is even, not in steps.
                    let offset = interval * (Double(index) / Double(senders))
                    group.addTask {
                        for number in 0..<(warmup + measured) {
                            try? await Task.sleep(until: start + offset + interval * number, clock: .continuous)
                            await sender.send(number)
                        }
                    }
                }
            }
            sendingSeconds = (ContinuousClock.now - start).seconds - 1
            _ = await pool.waitForReplies((warmup + measured) * senders, timeout: .seconds(30))
            for (senderIndex, sender) in pool.senders.enumerated() {
                let log = sender.snapshot
                duplicates += log.duplicateReplies
                for number in warmup..<(warmup + measured) {
                    let sent = log.sentAt[number]
                    let replied = log.repliedAt[number]
                    let due = (Double(number - warmup) + Double(senderIndex) / Double(senders)) * interval.seconds * 1_000
                    if replied == 0 || sent == 0 {
                        lost += 1
                        timeline.append((due, nil))
                    } else {
                        samples.add(nanoseconds: replied &- sent)
                        timeline.append((due, Double(replied &- sent) / 1e6))
                    }
                }
            }
            await pool.close()
        }
        let serverShare = serverCPU.coreShare
        let fleetShare = fleetCPU.coreShare
        let switches = fleetSwitches.switches
        let messages = Double(max(1, meteredMessages))
        await fleet.stop()
        return Measurement(
            samples: samples, achievedRate: Double(measured * senders) / sendingSeconds, serverCPU: serverShare,
            fleetCPU: fleetShare, voluntarySwitches: Double(switches.voluntary) / messages,
            involuntarySwitches: Double(switches.involuntary) / messages, lost: lost, duplicates: duplicates, steal: steal.share, timeline: timeline)
    }

    private func report(
        _ measurements: [FleetProcess.Runtime: Measurement], machine: MachineDescription, server: ServerProcess
    ) -> BenchReport {
        func values(_ value: (Measurement) -> Double) -> [String: Double] {
            var out: [String: Double] = [:]
            for (runtime, measurement) in measurements { out[runtime.rawValue] = value(measurement) }
            return out
        }
        let swiftP99 = measurements[.swift]?.samples.percentile(0.99)
        let figures = [
            Figure("p50", unit: "ms", values { $0.samples.percentile(0.50) }),
            Figure("p90", unit: "ms", values { $0.samples.percentile(0.90) }),
            Figure("p99", unit: "ms", values { $0.samples.percentile(0.99) }, goal: "≤ 5 ms", met: swiftP99.map { $0 <= 5 }),
            Figure("p99.9", unit: "ms", values { $0.samples.percentile(0.999) }),
            Figure("max", unit: "ms", values { $0.samples.maximum }),
            Figure("mean", unit: "ms", values { $0.samples.mean }),
            Figure("samples", unit: "count", values { Double($0.samples.count) }),
            Figure("offered rate", unit: "msg/s", values { $0.achievedRate }),
            Figure("server CPU", unit: "% core", values { $0.serverCPU * 100 }),
            Figure("bot process CPU", unit: "% core", values { $0.fleetCPU * 100 }),
            // At a fixed rate, a share of a core is a cost per message: 30 % of a core at 1,000 msg/s is 300 µs each.
            Figure("bot CPU per message", unit: "µs", values { $0.achievedRate > 0 ? $0.fleetCPU / $0.achievedRate * 1e6 : 0 }),
            Figure("voluntary switches", unit: "per msg", values { $0.voluntarySwitches }),
            Figure("involuntary switches", unit: "per msg", values { $0.involuntarySwitches }),
            Figure("CPU stolen by the host", unit: "% machine", values { $0.steal * 100 }),
            Figure("lost replies", unit: "count", values { Double($0.lost) }),
            Figure("duplicate replies", unit: "count", values { Double($0.duplicates) }),
        ]
        let notes = [
            context.options.server == .load
                ? "Latency = in the load server, from sending message.new to the bot until receiving the bot's reply "
                    + "(message.send) and acknowledging it (message.ack written): the bot's whole path (decode, dedupe "
                    + "record, handler, outbox entry, send), the network both ways, nothing of other senders."
                : "Latency = from the sender writing message.send to the sender receiving the bot's reply (message.new): "
                    + "server → bot (dedupe, outbox, send) → server → sender. The bot's own message.ack arrives at the "
                    + "bot at about the same time as that message.new (the server sends both after storing the reply).",
            "\(context.options.rate) msg/s over \(context.options.senders) senders for \(context.options.seconds) s after 1 s of warm-up.",
        ]
        return BenchReport(
            scenario: "latency", date: BenchDefaults.now(), machine: machine,
            server: context.serverDescription(server.endpoint),
            parameters: [
                "rate": "\(context.options.rate)", "seconds": "\(context.options.seconds)",
                "senders": "\(context.options.senders)",
            ],
            figures: figures, notes: notes)
    }
}

/// Latencies, kept whole (a few hundred thousand at most) so that percentiles are exact.
struct LatencySamples: Sendable {
    private var nanoseconds: [UInt64] = []
    private var sorted = true

    mutating func add(nanoseconds value: UInt64) {
        nanoseconds.append(value)
        sorted = false
    }

    var count: Int { nanoseconds.count }

    /// The `fraction` percentile (nearest rank), in milliseconds.
    func percentile(_ fraction: Double) -> Double {
        guard !nanoseconds.isEmpty else { return 0 }
        let ordered = sorted ? nanoseconds : nanoseconds.sorted()
        let rank = Int((fraction * Double(ordered.count)).rounded(.up)) - 1
        return Double(ordered[min(max(rank, 0), ordered.count - 1)]) / 1e6
    }

    var maximum: Double { Double(nanoseconds.max() ?? 0) / 1e6 }

    var mean: Double {
        guard !nanoseconds.isEmpty else { return 0 }
        return nanoseconds.reduce(0.0) { $0 + Double($1) } / Double(nanoseconds.count) / 1e6
    }
}
