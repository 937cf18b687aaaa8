/// The rule of `/healthz`'s counts, kept as bots change state rather than counted on each request: how many bots are
/// in each state and connected, and the bots not live in the order an operator acts on them (stopped or crashing,
/// then reconnecting, then on their way up or down), each group in configuration order (`rank`).
///
/// A bot is known by an id and placed by its rank; it is `starting` and not connected when it joins. Once its run
/// ended (`stop`), it shows `stopped` or `crashing` and not connected, whatever it reports afterwards, as
/// `BotSupervisor.statuses()` shows it.
struct HealthTally: Sendable {
    private struct Entry: Sendable {
        var rank: Int
        var reported: BotStatus.State
        var reportedConnected: Bool
        /// `stopped` or `crashing` once the run of the bot ended.
        var stoppedAs: BotStatus.State?

        var state: BotStatus.State { stoppedAs ?? reported }
        var connected: Bool { stoppedAs == nil && reportedConnected }
    }

    private var entries: [Int: Entry] = [:]
    private var idsByRank: [Int: Int] = [:]
    private var counts: [BotStatus.State: Int] = [:]
    /// The ranks of the bots not live, by urgency (`urgency(of:)`).
    private var notLiveRanks = [OrderedRanks](repeating: OrderedRanks(), count: 3)

    /// Bots in the fleet.
    private(set) var total = 0
    /// Bots with a ready connection.
    private(set) var connectedCount = 0

    /// Bots per state (`BotStatus.State`'s raw values), the states no bot is in left out.
    var states: [String: Int] {
        counts.reduce(into: [:]) { states, count in
            if count.value > 0 { states[count.key.rawValue] = count.value }
        }
    }

    /// Every bot not live.
    var notLiveCount: Int { notLiveRanks.reduce(0) { $0 + $1.count } }

    /// Whether every bot, and at least one, is connected.
    var everyBotConnected: Bool { total > 0 && connectedCount == total }

    /// Counts the bot `id` at `rank`, starting; a bot already counted is left as it is.
    mutating func join(_ id: Int, rank: Int) {
        guard entries[id] == nil else { return }
        let entry = Entry(rank: rank, reported: .starting, reportedConnected: false, stoppedAs: nil)
        entries[id] = entry
        idsByRank[rank] = id
        total += 1
        count(entry, by: 1)
    }

    /// The state the bot `id` reports now; ignored for a bot not counted.
    mutating func report(_ id: Int, state: BotStatus.State, connected: Bool) {
        change(id) { entry in
            entry.reported = state
            entry.reportedConnected = connected
        }
    }

    /// The run of the bot `id` ended (`.stopped`, or `.crashing`).
    mutating func stop(_ id: Int, as state: BotStatus.State) {
        change(id) { $0.stoppedAs = state }
    }

    /// Stops counting the bot `id`.
    mutating func leave(_ id: Int) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        if idsByRank[entry.rank] == id { idsByRank[entry.rank] = nil }
        total -= 1
        count(entry, by: -1)
    }

    /// The ids of the first `limit` bots not live, most urgent first.
    func notLive(limit: Int) -> [Int] {
        notLiveCounted(limit: limit).map(\.id)
    }

    /// A bot as the tally counts it: its state and connection as they enter the counts.
    struct Counted: Sendable, Equatable {
        var id: Int
        var rank: Int
        var state: BotStatus.State
        var connected: Bool
    }

    /// The counts, and some bots as counted at the same instant, so that what an answer says of these bots agrees
    /// with its counts.
    struct Snapshot: Sendable {
        var counts: HealthSummary.Counts
        var bots: [Counted]
    }

    /// The counts and the first `limit` bots not live, most urgent first: `/healthz`'s answer.
    func snapshot(namingNotLive limit: Int) -> Snapshot {
        Snapshot(counts: HealthSummary.Counts(tally: self), bots: notLiveCounted(limit: limit))
    }

    /// The counts and every bot, in no particular order: for a listing that orders and pages them itself.
    func snapshotOfEveryBot() -> Snapshot {
        Snapshot(counts: HealthSummary.Counts(tally: self), bots: entries.map { counted($0.key, $0.value) })
    }

    /// The first `limit` bots not live, most urgent first, as counted.
    private func notLiveCounted(limit: Int) -> [Counted] {
        var bots: [Counted] = []
        for group in notLiveRanks where bots.count < limit {
            for rank in group.prefix(limit - bots.count) {
                if let id = idsByRank[rank], let entry = entries[id] { bots.append(counted(id, entry)) }
            }
        }
        return bots
    }

    private func counted(_ id: Int, _ entry: Entry) -> Counted {
        Counted(id: id, rank: entry.rank, state: entry.state, connected: entry.connected)
    }

    /// 0 for a bot that needs an operator, 1 for one cut off from the server, 2 for one on its way; nil when live.
    static func urgency(of state: BotStatus.State) -> Int? {
        switch state {
        case .live: nil
        case .stopped, .crashing: 0
        case .reconnecting: 1
        case .starting, .signingIn, .connecting, .synchronizing, .stopping: 2
        }
    }

    private mutating func change(_ id: Int, _ body: (inout Entry) -> Void) {
        guard var entry = entries[id] else { return }
        let before = entry
        body(&entry)
        guard entry.state != before.state || entry.connected != before.connected else {
            entries[id] = entry
            return
        }
        count(before, by: -1)
        entries[id] = entry
        count(entry, by: 1)
    }

    private mutating func count(_ entry: Entry, by delta: Int) {
        counts[entry.state, default: 0] += delta
        if entry.connected { connectedCount += delta }
        if let urgency = Self.urgency(of: entry.state) {
            if delta > 0 { notLiveRanks[urgency].insert(entry.rank) } else { notLiveRanks[urgency].remove(entry.rank) }
        }
    }
}
