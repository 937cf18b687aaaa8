import Foundation

/// Which loading of `bots.json` is in force: 1 at start, one more per reload that changed the configuration, and
/// when it was loaded, with how the last reload ended. `/healthz` reports it as `configuration`, `/metrics` as
/// `chatterbots_configuration_generation` and `chatterbots_configuration_last_reload_successful`.
package struct ConfigurationGeneration: Sendable, Equatable, Codable {
    /// 1 at start, +1 per applied reload.
    package var generation: Int
    /// When this generation was read.
    package var loadedAt: Date
    /// How the last reload ended; nil before the first: a refused reload leaves the generation as it was, and only
    /// this tells monitoring that the file on disk is not the one in force.
    package var lastReload: LastReload?

    /// How a reload ended.
    package struct LastReload: Sendable, Equatable, Codable {
        /// Whether the file read is in force now.
        package var applied: Bool
        /// When the reload ended.
        package var at: Date
        /// Why it was refused, one line per problem; empty when applied.
        package var errors: [String]

        package init(applied: Bool, at: Date, errors: [String] = []) {
            self.applied = applied
            self.at = at
            self.errors = errors
        }
    }

    package init(generation: Int, loadedAt: Date, lastReload: LastReload? = nil) {
        self.generation = generation
        self.loadedAt = loadedAt
        self.lastReload = lastReload
    }

    /// Whether the last reload, if any, was applied: what `chatterbots_configuration_last_reload_successful` says.
    package var lastReloadSucceeded: Bool { lastReload?.applied ?? true }
}
