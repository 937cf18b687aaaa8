import Foundation

/// What `GET /healthz` answers: an overall verdict, the bots counted by state, the bots that are not live (at most
/// 20, the most urgent first), and, when asked for (`/healthz?bots=all`), every bot's status.
///
/// The process is healthy (HTTP 200) when it is not shutting down and every configured bot is connected; otherwise
/// 503. A bot stopped by a configuration error (a refused password) counts as not connected: the process is not
/// doing everything it was configured to do, and its `lastError` says what to fix.
public struct HealthReport: Sendable, Equatable, Codable {
    /// `"ok"` or `"unavailable"`.
    public var status: String
    /// Whether a shutdown is in progress.
    public var shuttingDown: Bool
    /// Each bot, in configuration order. `/healthz` lists them only when asked (`?bots=all`): decoded from its
    /// default answer, this is empty and `total`, `states` and `notLive` describe the fleet.
    public var bots: [BotStatus]
    /// How many bots the process runs.
    public var total: Int
    /// How many bots are in each state, by `BotStatus.State`'s raw value (`"live"`, `"reconnecting"`, …).
    public var states: [String: Int]
    /// The bots that are not live, those an operator must act on first (stopped or crashing, then reconnecting,
    /// then on their way), at most 20: `notLiveCount` says how many there are in all.
    public var notLive: [BotStatus]
    /// How many bots are not live, named in `notLive` or not.
    public var notLiveCount: Int
    /// The loading of `bots.json` in force (1 at start, +1 per applied reload), when it was read, and how the last
    /// reload ended (`lastReload`: applied, at, errors); nil when the process does not reload.
    package var configuration: ConfigurationGeneration?
    /// The threads the kinds' `make`s run on: within their timeout (`running`), and given up at it without having
    /// returned (`givenUp`), each holding its thread until it does; nil when the process does not count them.
    package var makeThreads: MakeThreads.Census?

    /// Builds the report and its verdict from the bots' statuses.
    public init(shuttingDown: Bool, bots: [BotStatus]) {
        self.init(shuttingDown: shuttingDown, summary: HealthSummary(bots: bots))
        self.bots = bots
    }

    /// The report of `summary`, without every bot's status: what `/healthz` answers by default.
    init(shuttingDown: Bool, summary: HealthSummary) {
        self.shuttingDown = shuttingDown
        bots = []
        status = !shuttingDown && summary.everyBotConnected ? "ok" : "unavailable"
        total = summary.total
        states = summary.states
        notLive = summary.notLive
        notLiveCount = summary.notLiveCount
    }

    /// Whether every configured bot is connected and no shutdown is in progress.
    public var isHealthy: Bool { status == "ok" }

    /// The report as JSON (sorted keys, ISO 8601 dates), with every bot's status.
    public func jsonData() -> Data {
        jsonData(listingEveryBot: true)
    }

    /// The report as JSON (sorted keys, ISO 8601 dates); without `bots` unless `listingEveryBot`, so that its size
    /// does not grow with the fleet.
    public func jsonData(listingEveryBot: Bool) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.userInfo[Self.listsEveryBot] = listingEveryBot
        // Strings, numbers, booleans and finite doubles always encode.
        return (try? encoder.encode(self)) ?? Data(#"{"status":"unavailable"}"#.utf8)
    }

    /// Set to false in an encoder's `userInfo`, the report leaves `bots` out.
    private static let listsEveryBot = CodingUserInfoKey(rawValue: "chatterbots.healthReport.listsEveryBot")!

    private enum CodingKeys: String, CodingKey {
        case status, shuttingDown, bots, total, states, notLive, notLiveCount, configuration, makeThreads
    }

    /// Decodes the default answer of `/healthz` (no `bots`) as well as the full one, and the full one of the versions
    /// before the counts (then counted from `bots`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(String.self, forKey: .status)
        shuttingDown = try container.decode(Bool.self, forKey: .shuttingDown)
        bots = try container.decodeIfPresent([BotStatus].self, forKey: .bots) ?? []
        let counted = HealthSummary(bots: bots)
        total = try container.decodeIfPresent(Int.self, forKey: .total) ?? counted.total
        states = try container.decodeIfPresent([String: Int].self, forKey: .states) ?? counted.states
        notLive = try container.decodeIfPresent([BotStatus].self, forKey: .notLive) ?? counted.notLive
        notLiveCount = try container.decodeIfPresent(Int.self, forKey: .notLiveCount) ?? counted.notLiveCount
        configuration = try container.decodeIfPresent(ConfigurationGeneration.self, forKey: .configuration)
        makeThreads = try container.decodeIfPresent(MakeThreads.Census.self, forKey: .makeThreads)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(shuttingDown, forKey: .shuttingDown)
        if encoder.userInfo[Self.listsEveryBot] as? Bool ?? true {
            try container.encode(bots, forKey: .bots)
        }
        try container.encode(total, forKey: .total)
        try container.encode(states, forKey: .states)
        try container.encode(notLive, forKey: .notLive)
        try container.encode(notLiveCount, forKey: .notLiveCount)
        try container.encodeIfPresent(configuration, forKey: .configuration)
        try container.encodeIfPresent(makeThreads, forKey: .makeThreads)
    }
}
