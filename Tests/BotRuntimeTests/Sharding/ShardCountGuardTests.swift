@testable import BotRuntime
import Foundation
import TestSupport
import Testing

/// After a change of the shard count, a bot that ran in another shard starts here only with its store.
@Suite("ShardCountGuard")
struct ShardCountGuardTests {
    let bots = (0..<60).map { "bot-\($0)" }

    /// The bots that move into shard 3 when going from 3 to 4 shards, and those that stay in shard 0.
    var movedIntoTheNewShard: [String] {
        let (before, after) = (ShardAssignment(count: 3), ShardAssignment(count: 4))
        return bots.filter { after.shard(of: $0) == 3 && before.shard(of: $0) != 3 }
    }

    @Test func withoutAPreviousCountNothingIsRefused() throws {
        let guardOfNewDirectory = ShardCountGuard(previousCount: nil)
        #expect(guardOfNewDirectory.missingStores(of: bots, on: try Shard(index: 3, count: 4)) { _ in false }.isEmpty)
    }

    @Test func withTheSameCountNothingIsRefused() throws {
        #expect(ShardCountGuard(previousCount: 4).missingStores(of: bots, on: try Shard(index: 3, count: 4)) { _ in false }.isEmpty)
    }

    @Test func afterAChangeABotThatRanInAnotherShardIsRefusedUntilItsStoreIsHere() throws {
        let shard = try Shard(index: 3, count: 4)
        let moved = movedIntoTheNewShard
        #expect(!moved.isEmpty)
        let refused = ShardCountGuard(previousCount: 3).missingStores(of: bots, on: shard) { _ in false }
        #expect(refused.map(\.bot) == moved)
        #expect(refused.allSatisfy { $0.previousShard == ShardAssignment(count: 3).shard(of: $0.bot) })
        #expect(ShardCountGuard(previousCount: 3).missingStores(of: bots, on: shard) { moved.contains($0) }.isEmpty)
    }

    @Test func aBotThatStaysInItsShardWithoutAStoreIsANewBotAndStarts() throws {
        let (before, after) = (ShardAssignment(count: 3), ShardAssignment(count: 4))
        let staying = try #require(bots.first { before.shard(of: $0) == 0 && after.shard(of: $0) == 0 })
        let refused = ShardCountGuard(previousCount: 3).missingStores(of: [staying], on: try Shard(index: 0, count: 4)) { _ in false }
        #expect(refused.isEmpty)
    }

    @Test func afterAChangeABotNewToTheFleetStartsWithoutAStore() throws {
        let shard = try Shard(index: 3, count: 4)
        let moved = movedIntoTheNewShard
        let (old, new) = (Array(moved.dropFirst()), try #require(moved.first))
        let refused = ShardCountGuard(previousCount: 3, previousBots: Set(old)).missingStores(of: bots, on: shard) { _ in false }
        #expect(refused.map(\.bot) == old, "\(new) was not in the fleet under the old count")
    }

    @Test func theCountAndTheFleetAreReadBackFromTheDataDirectory() throws {
        let directory = try TemporaryDirectory("ShardCountGuardTests")
        #expect(ShardCountGuard.read(in: directory.url).previousCount == nil)
        try ShardCountGuard.record(3, fleet: ["b", "a"], in: directory.url)
        #expect(ShardCountGuard.read(in: directory.url) == ShardCountGuard(previousCount: 3, previousBots: ["a", "b"]))
    }

    @Test func recordingUnderTheSameCountKeepsTheBotsRecordedBefore() throws {
        let directory = try TemporaryDirectory("ShardCountGuardTests")
        try ShardCountGuard.record(3, fleet: ["a", "b"], in: directory.url)
        try ShardCountGuard.record(3, fleet: ["b", "c"], in: directory.url)
        #expect(ShardCountGuard.read(in: directory.url).previousBots == ["a", "b", "c"], "a removed bot may have a store")
        try ShardCountGuard.record(4, fleet: ["c"], in: directory.url)
        #expect(ShardCountGuard.read(in: directory.url) == ShardCountGuard(previousCount: 4, previousBots: ["c"]))
    }

    @Test(arguments: ["0", "-3", "5000000000"])
    func aFileWithACountNoRunCanHaveCountsAsNone(count: String) throws {
        let directory = try TemporaryDirectory("ShardCountGuardTests")
        try directory.write(#"{"count": \#(count), "bots": ["a"]}"#, to: "shard-count.json")
        let read = ShardCountGuard.read(in: directory.url)
        #expect(read == ShardCountGuard(previousCount: nil))
        #expect(read.missingStores(of: bots, on: try Shard(index: 0, count: 2)) { _ in false }.isEmpty)
    }

    @Test func aFileWithoutTheFleetTakesEveryBotWithoutAStoreAsMoved() throws {
        let directory = try TemporaryDirectory("ShardCountGuardTests")
        try directory.write(#"{"count": 3}"#, to: "shard-count.json")
        let read = ShardCountGuard.read(in: directory.url)
        #expect(read == ShardCountGuard(previousCount: 3))
        #expect(read.missingStores(of: bots, on: try Shard(index: 3, count: 4)) { _ in false }.map(\.bot) == movedIntoTheNewShard)
    }
}
