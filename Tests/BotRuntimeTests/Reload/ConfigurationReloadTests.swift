@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

@Suite("configuration reload")
struct ConfigurationReloadTests {
    let base = URL(fileURLWithPath: "/srv/bots", isDirectory: true)

    func bot(_ name: String, password: String = "pw", options: String = "{}") -> String {
        #"{"name": "\#(name)", "kind": "echo", "credentials": {"username": "\#(name)_bot", "password": "\#(password)"}, "friendRequests": "everyone", "options": \#(options)}"#
    }

    func configuration(_ bots: [String], top: String = #""server": "sandbox""#) throws -> BotsConfiguration {
        try BotsConfiguration(
            json: Data(#"{\#(top), "bots": [\#(bots.joined(separator: ", "))]}"#.utf8), environment: [:], baseDirectory: base)
    }

    func change(_ reload: ConfigurationReload) -> FleetChange? {
        if case .apply(let change) = reload { return change }
        return nil
    }

    @Test func anAddedBotStartsAndTheOthersAreUnchanged() throws {
        let old = try configuration([bot("a"), bot("b")])
        let new = try configuration([bot("a"), bot("b"), bot("c")])
        let fleet = FleetChange(from: old.bots, to: new.bots)
        #expect(fleet.starts.map(\.name) == ["c"])
        #expect(fleet.stops.isEmpty && fleet.restarts.isEmpty)
        #expect(fleet.unchanged == ["a", "b"])
    }

    @Test func aRemovedBotStops() throws {
        let fleet = FleetChange(from: try configuration([bot("a"), bot("b")]).bots, to: try configuration([bot("b")]).bots)
        #expect(fleet.stops == ["a"])
        #expect(fleet.starts.isEmpty && fleet.restarts.isEmpty)
        #expect(fleet.unchanged == ["b"])
    }

    @Test func aBotWhoseOptionsOrPasswordChangedRestarts() throws {
        let old = try configuration([bot("a"), bot("b"), bot("c")])
        let new = try configuration([bot("a", options: #"{"prefix": "new"}"#), bot("b", password: "rotated"), bot("c")])
        let fleet = FleetChange(from: old.bots, to: new.bots)
        #expect(fleet.restarts.map(\.name) == ["a", "b"])
        #expect(fleet.restarts.first?.options == new.bots[0].options)
        #expect(fleet.unchanged == ["c"])
        #expect(fleet.starts.isEmpty && fleet.stops.isEmpty)
    }

    @Test func aBotThatStoppedOnItsOwnRestartsWithTheSameConfiguration() throws {
        let bots = try configuration([bot("a"), bot("b")]).bots
        let fleet = FleetChange(from: bots, to: bots, stopped: ["b"])
        #expect(fleet.restarts.map(\.name) == ["b"])
        #expect(fleet.unchanged == ["a"])
        #expect(fleet.starts.isEmpty && fleet.stops.isEmpty)
    }

    @Test func theSameFileChangesNothing() throws {
        let bots = try configuration([bot("a"), bot("b")]).bots
        let fleet = FleetChange(from: bots, to: bots)
        #expect(fleet.isEmpty)
        #expect(fleet.unchanged == ["a", "b"])
    }

    @Test func whatNeedsARestartIsRefusedNamingEachField() throws {
        let old = try configuration([bot("a")], top: #""server": "sandbox", "httpPort": 8080"#)
        let new = try configuration(
            [bot("a"), bot("b")], top: #""server": "sandbox", "httpPort": 9090, "dataDirectory": "elsewhere", "logLevel": "debug""#)
        guard case .refused(let issues) = ConfigurationReload(from: old, to: new, shard: nil) else {
            Issue.record("the reload was not refused")
            return
        }
        #expect(issues.map(\.field) == ["dataDirectory", "httpPort", "logLevel"])
        #expect(issues.allSatisfy { $0.message.contains("restart the process") })
    }

    @Test func aChangedReadinessTimeoutNeedsARestart() throws {
        let old = try configuration([bot("a")], top: #""server": "sandbox", "httpPort": 8080"#)
        let new = try configuration([bot("a")], top: #""server": "sandbox", "httpPort": 8080, "readinessTimeoutSeconds": 60"#)
        guard case .refused(let issues) = ConfigurationReload(from: old, to: new, shard: nil) else {
            Issue.record("the reload was not refused")
            return
        }
        #expect(issues.map(\.field) == ["readinessTimeoutSeconds"])
        #expect(issues.allSatisfy { $0.message.contains("restart the process") })
    }

    @Test func withAShardOnlyItsOwnBotsCount() throws {
        let names = (0..<12).map { "bot\($0)" }
        let shard = try Shard(index: 1, count: 3)
        let assignment = ShardAssignment(of: shard)
        let old = try configuration(names.map { bot($0) })
        let new = try configuration(names.map { bot($0, options: #"{"v": 2}"#) })
        let fleet = try #require(change(ConfigurationReload(from: old, to: new, shard: shard)))
        let ours = names.filter { assignment.runs($0, on: 1) }
        #expect(!ours.isEmpty)
        #expect(fleet.restarts.map(\.name) == ours)
        #expect(fleet.starts.isEmpty && fleet.stops.isEmpty)
    }
}
