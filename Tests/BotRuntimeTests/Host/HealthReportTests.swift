@testable import BotRuntime
import Foundation
import Testing

/// `HealthReport` as clients decode it from `/healthz`: the default answer without the bots, and the full one.
@Suite("health report")
struct HealthReportTests {
    func decode(_ data: Data) throws -> HealthReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(HealthReport.self, from: data)
    }

    @Test func theDefaultAnswerDecodesWithItsCountsAndNoBots() throws {
        let report = HealthReport(shuttingDown: false, bots: [.fixture("a", .live), .fixture("b", .reconnecting)])
        let decoded = try decode(report.jsonData(listingEveryBot: false))
        #expect(decoded.bots.isEmpty)
        #expect(decoded.total == 2)
        #expect(decoded.states == ["live": 1, "reconnecting": 1])
        #expect(decoded.notLive.map(\.name) == ["b"])
        #expect(!decoded.isHealthy)
    }

    @Test func theFullAnswerDecodesToTheSameReport() throws {
        let report = HealthReport(shuttingDown: false, bots: [.fixture("a", .live), .fixture("b", .stopped)])
        #expect(try decode(report.jsonData()) == report)
    }

    @Test func anAnswerWithoutCountsIsCountedFromItsBots() throws {
        let answer = #"{"status": "ok", "shuttingDown": false, "bots": [{"name": "a", "state": "live", "connected": true, "#
            + #""since": "2027-01-15T08:00:00Z", "reconnects": 0, "messagesIn": 0, "messagesOut": 0, "outboxDepth": 0, "#
            + #""messagesExpired": 0, "quarantined": 0, "handlerLatency": {"count": 0, "sumSeconds": 0, "maxSeconds": 0, "#
            + #""bucketCounts": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}}]}"#
        let decoded = try decode(Data(answer.utf8))
        #expect(decoded.total == 1)
        #expect(decoded.states == ["live": 1])
        #expect(decoded.notLiveCount == 0)
    }
}
