import Foundation

/// What keeps a change of the shard count from starting a bot as a fresh device in its new shard while its store,
/// with its device and unsent messages, is still where it ran before (on another machine's volume): the data
/// directory remembers the count it last ran with and the fleet's bots then (`shard-count.json`), and after a
/// change, a bot of this shard that has no store here and was in the fleet before is refused until its store is
/// imported (`docs/scaling.md`). A bot new to the fleet starts.
package struct ShardCountGuard: Sendable, Equatable {
    /// A bot refused: it has no store here, and under the previous count it ran in `previousShard`.
    package struct MissingStore: Sendable, Equatable {
        package var bot: String
        package var previousShard: Int
    }

    /// The count this data directory ran with last; nil before its first sharded run.
    package var previousCount: Int?
    /// Every bot of the fleet (all shards') when that count was recorded; nil when unknown (a file written before
    /// it was kept, or a count stated for a fresh volume): then every bot without a store may have moved.
    package var previousBots: Set<String>?

    package init(previousCount: Int?, previousBots: Set<String>? = nil) {
        self.previousCount = previousCount
        self.previousBots = previousBots
    }

    static let fileName = "shard-count.json"
    /// The count before a change, for a data directory that has none of its own (a new pod's fresh volume).
    package static let previousCountVariable = "CHATTERBOTS_PREVIOUS_SHARD_COUNT"

    private struct Stored: Codable {
        var count: Int
        var bots: [String]?
    }

    /// The guard of `dataDirectory`, as its last sharded run left it. A file that cannot be read, or holds a count
    /// no run can have (edited by hand), counts as none.
    package static func read(in dataDirectory: URL) -> ShardCountGuard {
        let url = dataDirectory.appendingPathComponent(fileName)
        let stored = (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) }
            .flatMap { (1...Shard.maximumCount).contains($0.count) ? $0 : nil }
        return ShardCountGuard(previousCount: stored?.count, previousBots: stored?.bots.map(Set.init))
    }

    /// Records that `dataDirectory` now runs with `count` shards, in a fleet of `bots` (every shard's), once a run
    /// has started (a run that failed to start changes nothing) and after each reload. Under the same count the bots
    /// recorded before are kept: one removed from the file may still have a store somewhere.
    package static func record(_ count: Int, fleet bots: [String], in dataDirectory: URL) throws {
        let before = read(in: dataDirectory)
        let kept = before.previousCount == count ? before.previousBots ?? [] : []
        try JSONEncoder().encode(Stored(count: count, bots: kept.union(bots).sorted()))
            .write(to: dataDirectory.appendingPathComponent(fileName), options: .atomic)
    }

    /// The bots of `shard` (among `bots`) that must not start: the count changed since the last run here, and they
    /// have no store here (`hasStore`). A bot whose previous shard was this one, or that was not in the fleet then,
    /// and has no store is new, not moved.
    package func missingStores(of bots: [String], on shard: Shard, hasStore: (String) -> Bool) -> [MissingStore] {
        guard let previousCount, previousCount != shard.count else { return [] }
        let now = ShardAssignment(of: shard)
        let before = ShardAssignment(count: previousCount)
        return bots.compactMap { bot in
            guard now.runs(bot, on: shard.index), !hasStore(bot), previousBots?.contains(bot) ?? true else { return nil }
            let previous = before.shard(of: bot)
            return previous == shard.index ? nil : MissingStore(bot: bot, previousShard: previous)
        }
    }
}
