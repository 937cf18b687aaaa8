import Foundation

/// What `GET /healthz` answers: every bot's status and an overall verdict.
///
/// The process is healthy (HTTP 200) when it is not shutting down and every configured bot is connected; otherwise
/// 503. A bot stopped by a configuration error (a refused password) counts as not connected: the process is not
/// doing everything it was configured to do, and its `lastError` says what to fix.
public struct HealthReport: Sendable, Equatable, Codable {
    /// `"ok"` or `"unavailable"`.
    public var status: String
    /// Whether a shutdown is in progress.
    public var shuttingDown: Bool
    /// Each bot, in configuration order.
    public var bots: [BotStatus]
    /// The loading of `bots.json` in force (1 at start, +1 per applied reload), when it was read, and how the last
    /// reload ended (`lastReload`: applied, at, errors); nil when the process does not reload.
    package var configuration: ConfigurationGeneration?

    /// Builds the report and its verdict from the bots' statuses.
    public init(shuttingDown: Bool, bots: [BotStatus]) {
        self.shuttingDown = shuttingDown
        self.bots = bots
        let healthy = !shuttingDown && !bots.isEmpty && bots.allSatisfy(\.connected)
        self.status = healthy ? "ok" : "unavailable"
    }

    /// Whether every configured bot is connected and no shutdown is in progress.
    public var isHealthy: Bool { status == "ok" }

    /// The report as JSON (sorted keys, ISO 8601 dates).
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // Strings, numbers, booleans and finite doubles always encode.
        return (try? encoder.encode(self)) ?? Data(#"{"status":"unavailable"}"#.utf8)
    }
}
