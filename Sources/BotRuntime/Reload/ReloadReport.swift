import Foundation

/// What a reload did, as `POST /reload` answers it and `example-bots reload` prints it: applied (with the bots
/// started, stopped and restarted) or refused (with every error, and the fleet untouched).
package struct ReloadReport: Sendable, Equatable, Codable {
    /// Whether the new file is in force now.
    package var applied: Bool
    /// The configuration generation in force after the reload.
    package var generation: Int
    package var started: [String]
    package var stopped: [String]
    package var restarted: [String]
    /// How many bots kept their sessions.
    package var unchanged: Int
    /// Why the reload was refused, one line per problem; empty when applied.
    package var errors: [String]

    package init(
        applied: Bool, generation: Int, started: [String] = [], stopped: [String] = [], restarted: [String] = [],
        unchanged: Int = 0, errors: [String] = []
    ) {
        self.applied = applied
        self.generation = generation
        self.started = started
        self.stopped = stopped
        self.restarted = restarted
        self.unchanged = unchanged
        self.errors = errors
    }

    /// One line for people: what changed (at most `NameSample.limit` names a list), or why nothing did.
    package var summary: String {
        guard applied else {
            return "reload refused, nothing changed (\(errors.count) problem\(errors.count == 1 ? "" : "s")):\n"
                + errors.map { "  - \($0)" }.joined(separator: "\n")
        }
        func list(_ names: [String]) -> String { names.isEmpty ? "none" : NameSample(names).joined() }
        return "reloaded: configuration generation \(generation); started \(list(started)); stopped \(list(stopped)); "
            + "restarted \(list(restarted)); \(unchanged) unchanged"
    }
}

/// What the control route `POST /reload` calls: reads `bots.json` again and applies it (`ConfigurationReload`).
package protocol ConfigurationReloading: Sendable {
    /// Reloads now, `trigger` saying why (for the log: "SIGHUP", "the control route", "the file changed").
    func reload(trigger: String) async -> ReloadReport
    /// The configuration in force.
    var generation: ConfigurationGeneration { get async }
}
