import BotRuntime
import Foundation
import Testing
@testable import ChatterBench

/// The fleet's events reach the bench as JSON lines, each once, however many are emitted at once.
@Suite struct FleetReporterTests {
    @Test func everyLiveRecordBecomesOneLineWithTheBotsConnectionCount() async throws {
        let pipe = Pipe()
        let names = (0..<50).map { "bot\($0)" }
        let reporter = FleetReporter(botNames: names, output: pipe.fileHandleForWriting)
        await withTaskGroup(of: Void.self) { group in
            for name in names {
                group.addTask {
                    for _ in 0..<2 {
                        reporter.observe(LogRecord(time: Date(), level: .notice, bot: name, message: "live", fields: [:]))
                    }
                }
            }
        }
        reporter.flush()
        try pipe.fileHandleForWriting.close()
        let output = try #require(try pipe.fileHandleForReading.readToEnd())
        let events = try String(decoding: output, as: UTF8.self).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(events.count == 100)
        var connections: [Int: [Int]] = [:]
        for event in events {
            #expect(event["event"] as? String == "live")
            let bot = try #require(event["bot"] as? Int)
            connections[bot, default: []].append(try #require(event["connection"] as? Int))
        }
        #expect(connections.count == 50)
        #expect(connections.values.allSatisfy { $0 == [1, 2] }, "each bot's lines in the order emitted")
    }
}
