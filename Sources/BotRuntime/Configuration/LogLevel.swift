import Foundation

/// How much the runtime logs, from the most verbose to the least (swift-log's levels).
public enum LogLevel: String, Sendable, Codable, CaseIterable, Comparable {
    /// Every frame and decision.
    case trace
    /// Diagnostics for developers.
    case debug
    /// Connections, sign-ins, bots starting and stopping (the default).
    case info
    /// Unusual but expected events (a reconnect).
    case notice
    /// Problems the runtime works around (a rate limit, an unreadable frame).
    case warning
    /// Problems that cost a bot its work (a failed send, a stopped bot).
    case error
    /// The process cannot go on.
    case critical

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}
