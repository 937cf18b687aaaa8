/// Which shard runs which bot: rendezvous (highest random weight) hashing of the bot's name over the shard indexes.
///
/// The weight of bot `name` on shard `index` is the 64-bit FNV-1a hash of the UTF-8 bytes of `"<name>#<index>"`
/// (the index in decimal, no padding), passed through splitmix64's finalizer; the bot goes to the shard of the
/// highest weight, the lowest index on a tie. docs/scaling.md states the same, so that any other tool can compute
/// the assignment; the tests hold vectors to check it against.
///
/// Going from `N` to `N + 1` shards, a bot moves only if shard `N`'s weight beats every old one: it moves to the
/// new shard, never between two old ones, and about `1 / (N + 1)` of the bots move.
package struct ShardAssignment: Sendable, Equatable {
    /// How many shards the bots are spread over.
    package let count: Int

    /// A bot that changes shard when the count changes.
    package struct Move: Sendable, Equatable {
        package var bot: String
        package var from: Int
        package var to: Int
    }

    /// - Precondition: `count` is at least 1 (a `Shard`'s count always is).
    package init(count: Int) {
        precondition(count >= 1, "a fleet has at least one shard")
        self.count = count
    }

    /// The assignment of `shard`'s fleet.
    package init(of shard: Shard) {
        self.init(count: shard.count)
    }

    /// The shard that runs the bot named `bot`.
    package func shard(of bot: String) -> Int {
        var best = 0
        var bestWeight = Self.weight(bot: bot, shard: 0)
        for index in 1..<max(count, 1) {
            let weight = Self.weight(bot: bot, shard: index)
            if weight > bestWeight {
                best = index
                bestWeight = weight
            }
        }
        return best
    }

    /// Whether `shard` runs the bot named `bot`.
    package func runs(_ bot: String, on shard: Int) -> Bool {
        self.shard(of: bot) == shard
    }

    /// The bots of each shard, in the order of `bots`, indexed by shard.
    package func shards(of bots: [String]) -> [[String]] {
        var shards = Array(repeating: [String](), count: count)
        for bot in bots { shards[shard(of: bot)].append(bot) }
        return shards
    }

    /// The bots of `bots` whose shard differs between `previous` and this assignment, in the order of `bots`.
    package func moves(from previous: ShardAssignment, of bots: [String]) -> [Move] {
        bots.compactMap { bot in
            let old = previous.shard(of: bot)
            let new = shard(of: bot)
            return old == new ? nil : Move(bot: bot, from: old, to: new)
        }
    }

    /// The weight of `bot` on shard `shard`: splitmix64's finalizer of the FNV-1a hash of `"<bot>#<shard>"`.
    package static func weight(bot: String, shard: Int) -> UInt64 {
        mix(fnv1a("\(bot)#\(shard)".utf8))
    }

    /// 64-bit FNV-1a: offset basis 0xcbf29ce484222325, prime 0x100000001b3, xor then multiply per byte.
    static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// splitmix64's finalizer: it spreads FNV-1a's weak low-order differences over every bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
