/// The bots' counters in the Prometheus text exposition format (version 0.0.4), as `GET /metrics` serves them:
/// a `# HELP` and a `# TYPE` line per metric family, then its samples: one per bot (label `bot`) for the gauges and
/// counters, one process-wide histogram of handler durations (a histogram per bot would be 16 series a bot, too
/// many for a scrape of a large fleet).
///
/// | metric | type | meaning |
/// |---|---|---|
/// | `chatterbots_bots` | gauge | configured bots |
/// | `chatterbots_bots_connected` | gauge | bots with a ready session |
/// | `chatterbots_bot_connected{bot}` | gauge | 1 when the bot's session is ready, else 0 |
/// | `chatterbots_reconnects_total{bot}` | counter | connections opened after the first |
/// | `chatterbots_messages_received_total{bot}` | counter | messages from others received |
/// | `chatterbots_messages_sent_total{bot}` | counter | messages acknowledged by the server |
/// | `chatterbots_outbox_depth{bot}` | gauge | messages waiting for their acknowledgement |
/// | `chatterbots_messages_expired_total{bot}` | counter | messages failed unsent: older than the idempotency window |
/// | `chatterbots_quarantined{bot}` | gauge | handler work set aside because it kept crashing the process |
/// | `chatterbots_handler_duration_seconds` | histogram | handler run time, every bot's (removed ones' too) |
/// | `chatterbots_configuration_generation` | gauge | the loading of `bots.json` in force (with a reloader) |
/// | `chatterbots_configuration_last_reload_successful` | gauge | 0 when the last reload was refused, else 1 |
/// | `chatterbots_make_threads{state}` | gauge | threads running a kind's `make`: `running` within its timeout, `given_up` past it and not returned |
public struct MetricsExposition: Sendable {
    /// The `Content-Type` of the text format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The statuses the text is built from.
    public var bots: [BotStatus]

    /// The handler durations of the bots no longer in `bots` (removed or replaced by a reload), which the
    /// process-wide histogram keeps so that it never goes down.
    package var retiredHandlerLatency = HandlerLatencySummary()

    /// The configuration in force and how its last reload ended; nil when the process does not reload (the
    /// configuration families are left out).
    package var configuration: ConfigurationGeneration?

    /// The threads the kinds' `make`s run on; nil when the process does not count them (the family is left out).
    package var makeThreads: MakeThreads.Census?

    /// An exposition of these bots.
    public init(bots: [BotStatus]) {
        self.bots = bots
    }

    /// The histogram of every handler call of the process: the retired bots' and those of `bots`.
    package var handlerLatency: HandlerLatencySummary {
        var latency = retiredHandlerLatency
        for bot in bots { latency.add(bot.handlerLatency) }
        return latency
    }

    /// The exposition text, ending with a newline. Built in one string, each bot's label escaped once: a scrape of
    /// a large fleet writes tens of thousands of samples.
    public var text: String {
        var text = ""
        text.reserveCapacity(1_024 + bots.count * 7 * 64)
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func sample(_ name: String, _ value: String) {
            text += "\(name) \(value)\n"
        }
        let labels = bots.map { "{bot=\"\(Self.escapeLabelValue($0.name))\"} " }
        func perBot(_ name: String, _ type: String, _ help: String, _ value: (BotStatus) -> Int) {
            family(name, type, help)
            for (bot, label) in zip(bots, labels) {
                text += name
                text += label
                text += String(value(bot))
                text += "\n"
            }
        }

        family("chatterbots_bots", "gauge", "Bots configured in this process.")
        sample("chatterbots_bots", String(bots.count))
        family("chatterbots_bots_connected", "gauge", "Bots with a ready session.")
        sample("chatterbots_bots_connected", String(bots.reduce(0) { $0 + ($1.connected ? 1 : 0) }))
        perBot("chatterbots_bot_connected", "gauge", "Whether the bot's session is ready (1) or not (0).") {
            $0.connected ? 1 : 0
        }
        perBot("chatterbots_reconnects_total", "counter", "Connections opened after the first one.") { $0.reconnects }
        perBot("chatterbots_messages_received_total", "counter", "Messages from others received by the bot.") {
            $0.messagesIn
        }
        perBot("chatterbots_messages_sent_total", "counter", "Messages of the bot acknowledged by the server.") {
            $0.messagesOut
        }
        perBot("chatterbots_outbox_depth", "gauge", "Messages in the bot's outbox waiting for their acknowledgement.") {
            $0.outboxDepth
        }
        perBot("chatterbots_messages_expired_total", "counter",
            "Messages failed unsent because they outlived the service's idempotency window.") { $0.messagesExpired }
        perBot("chatterbots_quarantined", "gauge", "Handler work set aside because it kept crashing the process.") {
            $0.quarantined
        }
        let histogram = "chatterbots_handler_duration_seconds"
        family(histogram, "histogram", "Time the handlers of every bot of the process took, in seconds.")
        let handlerLatency = handlerLatency
        let bounds = HandlerLatencySummary.bucketBounds.map(Self.number) + ["+Inf"]
        for (bound, count) in zip(bounds, handlerLatency.cumulativeCounts) {
            sample(histogram + "_bucket{le=\"\(bound)\"}", String(count))
        }
        sample(histogram + "_sum", Self.number(handlerLatency.sumSeconds))
        sample(histogram + "_count", String(handlerLatency.count))
        if let configuration {
            family("chatterbots_configuration_generation", "gauge",
                "The loading of bots.json in force: 1 at start, +1 per applied reload that changed it.")
            sample("chatterbots_configuration_generation", String(configuration.generation))
            family("chatterbots_configuration_last_reload_successful", "gauge",
                "Whether the last reload of bots.json was applied (1) or refused (0); 1 before any.")
            sample("chatterbots_configuration_last_reload_successful", configuration.lastReloadSucceeded ? "1" : "0")
        }
        if let makeThreads {
            family("chatterbots_make_threads", "gauge",
                "Threads running a bot kind's make: within its timeout (running), or given up at it and not returned "
                    + "(given_up), each holding its thread until it returns.")
            sample("chatterbots_make_threads{state=\"running\"}", String(makeThreads.running))
            sample("chatterbots_make_threads{state=\"given_up\"}", String(makeThreads.givenUp))
        }
        return text
    }

    /// A label value with `\`, `"` and newlines escaped, as the format requires.
    static func escapeLabelValue(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
        else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A sample value: integral values without a fraction (`1`, `30`), others in Swift's shortest form (`0.005`).
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
