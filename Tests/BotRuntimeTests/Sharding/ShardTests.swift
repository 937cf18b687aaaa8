@testable import BotRuntime
import Foundation
import Testing

@Suite("shards")
struct ShardTests {
    @Test func aShardIsReadAsIndexSlashCount() throws {
        #expect(try Shard(parsing: "1/3") == Shard(index: 1, count: 3))
        #expect(try Shard(parsing: "0/1").description == "0/1")
    }

    @Test func aShardOutsideItsCountOrMalformedIsRefusedSayingWhy() {
        #expect(throws: ShardError.indexOutOfRange(index: 3, count: 3)) { try Shard(parsing: "3/3") }
        #expect(throws: ShardError.invalidCount("0")) { try Shard(parsing: "0/0") }
        for text in ["1", "1/", "/3", "-1/3", "1/3/4", "a/3", " 1/3", "1/+3"] {
            #expect(throws: ShardError.malformed(text)) { try Shard(parsing: text) }
        }
        #expect(ShardError.indexOutOfRange(index: 3, count: 3).description.contains("from 0 to 2"))
    }

    @Test func aStatefulSetPodNamesItsShardByItsOrdinal() throws {
        #expect(try Shard(hostname: "bots-2", count: 3) == Shard(index: 2, count: 3))
        #expect(try Shard(hostname: "chatter-bots-0", count: 1) == Shard(index: 0, count: 1))
        #expect(try Shard(hostname: "bots-1.bots.default.svc.cluster.local", count: 2) == Shard(index: 1, count: 2))
    }

    @Test func aHostNameWithoutAnOrdinalOrBeyondTheCountIsRefused() {
        for hostname in ["bots", "bots-", "bots-x", "", "laptop.local"] {
            #expect(throws: ShardError.noOrdinal(hostname: hostname)) { try Shard(hostname: hostname, count: 3) }
        }
        #expect(throws: ShardError.indexOutOfRange(index: 3, count: 3)) { try Shard(hostname: "bots-3", count: 3) }
    }

    @Test func aShardCountIsAWholeNumberFromOne() throws {
        #expect(try Shard.count(parsing: "4") == 4)
        for text in ["0", "-1", "x", "", "1000000"] {
            #expect(throws: ShardError.invalidCount(text)) { try Shard.count(parsing: text) }
        }
    }
}

@Suite("shard layout")
struct ShardLayoutTests {
    let data = URL(fileURLWithPath: "/srv/bots/data", isDirectory: true)

    @Test func eachShardKeepsItsInFlightTableInItsOwnDirectoryAndWithoutAShardTheDataDirectoryHasIt() throws {
        #expect(ShardLayout(shard: nil).inFlightDirectory(in: data) == data)
        #expect(ShardLayout(shard: try Shard(index: 2, count: 3)).inFlightDirectory(in: data).path == "/srv/bots/data/shard-2")
        #expect(ShardLayout(shard: try Shard(index: 2, count: 5)).inFlightDirectory(in: data).path == "/srv/bots/data/shard-2")
    }

    @Test func eachShardServesHTTPOnTheConfiguredPortPlusItsIndexAndZeroStaysAnyFreePort() throws {
        let shard = try Shard(index: 2, count: 3)
        #expect(try ShardLayout(shard: shard).httpPort(configured: 9100) == 9102)
        #expect(try ShardLayout(shard: shard).httpPort(configured: 0) == 0)
        #expect(try ShardLayout(shard: shard).httpPort(configured: nil) == nil)
        #expect(try ShardLayout(shard: nil).httpPort(configured: 9100) == 9100)
        #expect(throws: ShardLayoutError.httpPortOutOfRange(httpPort: 65_534, shard: shard)) {
            try ShardLayout(shard: shard).httpPort(configured: 65_534)
        }
    }

    @Test func aShardAloneOnItsHostServesHTTPOnTheConfiguredPortWhateverItsIndex() throws {
        let pod = ShardLayout(shard: try Shard(index: 2, count: 3), isAloneOnHost: true)
        #expect(try pod.httpPort(configured: 8961) == 8961)
        #expect(try pod.httpPort(configured: 65_535) == 65_535)
        #expect(try pod.httpPort(configured: 0) == 0)
        #expect(try pod.httpPort(configured: nil) == nil)
    }

    @Test func shardZeroEmbedsTheSandboxTheOthersShareIt() throws {
        #expect(ShardLayout(shard: nil).embedsSandbox && !ShardLayout(shard: nil).sharesSandbox)
        #expect(ShardLayout(shard: try Shard(index: 0, count: 3)).embedsSandbox)
        #expect(ShardLayout(shard: try Shard(index: 0, count: 3)).sharesSandbox)
        #expect(!ShardLayout(shard: try Shard(index: 1, count: 3)).embedsSandbox)
    }
}
