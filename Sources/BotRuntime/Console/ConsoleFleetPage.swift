import Foundation

/// One page of the fleet as the console shows it: how many bots there are in each state, how many pass the
/// filters, and the page's bots (`ConsoleFleetSelection`) with their counters and messages per minute. Encoded as the JSON of
/// `/console/fleet` and of each `/console/events` snapshot.
package struct ConsoleFleetPage: Sendable, Equatable, Encodable {
    /// One bot's row.
    package struct Row: Sendable, Equatable, Encodable {
        package var name: String
        package var state: BotStatus.State
        package var since: Date
        /// When a backoff or rate limit ends, while reconnecting.
        package var reconnectAt: Date?
        package var lastError: String?
        package var stopReason: String?
        package var messagesIn: Int
        package var messagesOut: Int
        package var outboxDepth: Int
        package var reconnects: Int
        package var quarantined: Int
        /// Messages in and out per minute over the last hour, oldest first.
        package var perMinute: [Int]
    }

    /// Bots in the fleet.
    package var total: Int
    /// Bots per state, over the whole fleet.
    package var states: [String: Int]
    /// Bots that pass the filters.
    package var matching: Int
    /// The page shown (from 1; the last page when the one asked for is past it).
    package var page: Int
    package var pages: Int
    package var pageSize: Int
    package var bots: [Row]
    /// The faults the page may set off (`ConsoleFault`); empty unless the server is the embedded sandbox.
    package var faults: [String] = []

    /// The page `selection` chose in a fleet of `total` bots counted as `states`: `statuses` are its bots' (in its
    /// order), `perMinute` gives a shown bot's chart.
    init(
        total: Int, states: [String: Int], selection: ConsoleFleetSelection, statuses: [BotStatus],
        perMinute: (String) -> [Int]
    ) {
        self.total = total
        self.states = states
        matching = selection.matching
        page = selection.page
        pages = selection.pages
        pageSize = selection.pageSize
        bots = statuses.map { status in
            Row(
                name: status.name, state: status.state, since: status.since, reconnectAt: status.reconnectAt,
                lastError: status.lastError, stopReason: status.stopReason, messagesIn: status.messagesIn,
                messagesOut: status.messagesOut, outboxDepth: status.outboxDepth, reconnects: status.reconnects,
                quarantined: status.quarantined, perMinute: perMinute(status.name))
        }
    }

    /// The page `query` asks for of `statuses` (in configuration order); `perMinute` gives a shown bot's chart.
    package init(statuses: [BotStatus], query: ConsoleFleetQuery, perMinute: (String) -> [Int]) {
        let listed = statuses.enumerated().map { index, status in
            ConsoleFleetSelection.Listed(
                name: status.name,
                counted: HealthTally.Counted(id: index, rank: index, state: status.state, connected: status.connected))
        }
        let selection = ConsoleFleetSelection(listed, query: query)
        self.init(
            total: statuses.count, states: statuses.reduce(into: [:]) { $0[$1.state.rawValue, default: 0] += 1 },
            selection: selection, statuses: selection.bots.map { statuses[$0.counted.id] }, perMinute: perMinute)
    }

    /// The page as compact JSON (one line: it goes into one server-sent event's data).
    package var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array(#"{"error":"the fleet could not be encoded"}"#.utf8)
    }
}
