@testable import BotRuntime
import Testing

@Suite("shard assignment")
struct ShardAssignmentTests {
    /// Fixed names and their shard for 1 to 5 shards, computed apart from this code (a short Python script of
    /// docs/scaling.md's definition): another implementation checks itself against the same table.
    static let vectors: [(name: String, shards: [Int])] = [
        ("echo", [0, 1, 1, 1, 1]),
        ("greeter", [0, 0, 2, 2, 2]),
        ("reminders", [0, 0, 2, 2, 4]),
        ("auto_responder", [0, 0, 0, 0, 4]),
        ("bot-0", [0, 0, 0, 3, 3]),
        ("bot-1", [0, 0, 2, 3, 3]),
        ("bot-2", [0, 1, 2, 2, 2]),
        ("bot-3", [0, 1, 1, 1, 1]),
        ("ünïcode", [0, 1, 2, 2, 4]),
        ("a", [0, 0, 0, 3, 3]),
    ]

    @Test func theShardsOfTheTestVectorsAreTheDocumentedOnes() {
        for vector in Self.vectors {
            let computed = (1...5).map { ShardAssignment(count: $0).shard(of: vector.name) }
            #expect(computed == vector.shards, "\(vector.name)")
        }
    }

    @Test func theWeightIsFNV1aOfNameHashIndexThroughSplitmix64sFinalizer() {
        #expect(ShardAssignment.fnv1a("".utf8) == 0xcbf2_9ce4_8422_2325)
        #expect(ShardAssignment.fnv1a("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(ShardAssignment.fnv1a("foobar".utf8) == 0x8594_4171_f739_67e8)
        #expect(ShardAssignment.weight(bot: "echo", shard: 0) == 0xd80a_3092_eb84_b296)
        #expect(ShardAssignment.weight(bot: "echo", shard: 1) == 0xeff0_60e4_eedd_02d2)
        #expect(ShardAssignment.weight(bot: "echo", shard: 1) == ShardAssignment.mix(ShardAssignment.fnv1a("echo#1".utf8)))
    }

    @Test func goingFromNToNPlusOneShardsMovesAboutOneInNPlusOneAndOnlyToTheNewShard() {
        let bots = (0..<3_000).map { "bot-\($0)" }
        for count in 1...7 {
            let before = ShardAssignment(count: count)
            let after = ShardAssignment(count: count + 1)
            let moves = after.moves(from: before, of: bots)
            #expect(moves.allSatisfy { $0.to == count }, "from \(count): a bot moved between two old shards")
            let expected = Double(bots.count) / Double(count + 1)
            #expect(Double(moves.count) > expected * 0.8 && Double(moves.count) < expected * 1.2,
                "from \(count) to \(count + 1) shards: \(moves.count) moved, about \(Int(expected)) expected")
        }
    }

    @Test func everyBotHasExactlyOneShardAndTheShardsAreAboutEven() {
        let bots = (0..<3_000).map { "bot-\($0)" }
        let shards = ShardAssignment(count: 4).shards(of: bots)
        #expect(shards.count == 4)
        #expect(shards.flatMap { $0 }.sorted() == bots.sorted())
        for shard in shards { #expect(shard.count > 600 && shard.count < 900, "\(shard.count) bots in one shard of 4") }
    }

    @Test func movesNameTheOldAndTheNewShardOfEachMovedBot() {
        let moves = ShardAssignment(count: 3).moves(from: ShardAssignment(count: 2), of: Self.vectors.map(\.name))
        #expect(moves == [
            .init(bot: "greeter", from: 0, to: 2), .init(bot: "reminders", from: 0, to: 2), .init(bot: "bot-1", from: 0, to: 2),
            .init(bot: "bot-2", from: 1, to: 2), .init(bot: "ünïcode", from: 1, to: 2),
        ])
    }
}
