import Foundation

/// The log tail as a part of a console event stream: `{"bot", "trace"}` (either may be empty or left out) sends
/// `ready` with the last 200 kept records of that bot or trace, then `logs` events as records come. A burst travels
/// in a few events: the first new record waits `flushInterval` on the tail's clock for the ones behind it, and an
/// event carries at most `batchSize` records.
struct ConsoleLogPart: ConsoleStreamPart {
    let name = "logs"
    let acts = false
    let tail: ConsoleLogTail

    /// How long the tail gathers records after the first of a burst before it sends them.
    static let flushInterval: Duration = .milliseconds(150)
    /// The most records one `logs` event carries.
    static let batchSize = 250
    /// How many kept records a new choice receives first.
    static let replayed = 200

    func feed(for choice: [String: Any]) throws(ConsoleInputError) -> ConsoleStreamFeed {
        var items: [(name: String, value: String)] = []
        for (key, value) in choice {
            guard let text = value as? String else { throw ConsoleInputError("logs.\(key) takes a string") }
            items.append((key, text))
        }
        return try feed(for: items)
    }

    /// The feed of a filter given as `bot` and `trace` parameters.
    ///
    /// - Throws: `ConsoleInputError` naming a parameter other than those two.
    func feed(for items: [(name: String, value: String)]) throws(ConsoleInputError) -> ConsoleStreamFeed {
        if let item = items.first(where: { $0.name != "bot" && $0.name != "trace" }) {
            throw ConsoleInputError("unknown parameter \"\(item.name)\"; use bot and trace")
        }
        let bot = items.first { $0.name == "bot" }.flatMap { $0.value.isEmpty ? nil : $0.value }
        let trace = items.first { $0.name == "trace" }.flatMap { $0.value.isEmpty ? nil : $0.value }
        return { [tail] events in
            let (id, recent, wakes) = tail.listen { record in
                (bot == nil || record.bot == bot) && (trace == nil || record.trace == trace)
            }
            defer { tail.stopListening(id) }
            guard await events.send(events.event("ready", Array("{}".utf8)) + Self.events(recent.suffix(Self.replayed), to: events))
            else { return }
            for await _ in wakes {
                try? await tail.clock.sleep(for: Self.flushInterval)
                guard !Task.isCancelled, await events.send(Self.events(tail.take(id), to: events)) else { return }
            }
        }
    }

    /// `records` as `logs` events of at most `batchSize` records each.
    static func events(_ records: some Collection<LogRecord>, to sink: ConsoleEventSink) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = records[...]
        while !rest.isEmpty {
            let batch = rest.prefix(batchSize)
            rest = rest.dropFirst(batch.count)
            let data = (try? JSONSerialization.data(withJSONObject: batch.map(object), options: [.sortedKeys, .withoutEscapingSlashes]))
                ?? Data()
            bytes += sink.event("logs", Array(data))
        }
        return bytes
    }

    /// One log record as the page reads it.
    static func object(_ record: LogRecord) -> [String: Any] {
        var object: [String: Any] = [
            "time": record.time.formatted(.iso8601.time(includingFractionalSeconds: true)),
            "level": record.level.rawValue, "message": record.message, "fields": record.fields,
        ]
        object["bot"] = record.bot
        object["trace"] = record.trace
        return object
    }
}
