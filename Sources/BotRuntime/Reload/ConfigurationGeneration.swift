import Foundation

/// Which loading of `bots.json` is in force: 1 at start, one more per reload that changed the configuration, and
/// when it was loaded. `/healthz` reports it as `configuration`.
package struct ConfigurationGeneration: Sendable, Equatable, Codable {
    /// 1 at start, +1 per applied reload.
    package var generation: Int
    /// When this generation was read.
    package var loadedAt: Date

    package init(generation: Int, loadedAt: Date) {
        self.generation = generation
        self.loadedAt = loadedAt
    }
}
