@testable import BotRuntime
import Testing

@Suite("reload report")
struct ReloadReportTests {
    @Test func theSummaryOfALargeReloadCountsTheNamesPastTwenty() {
        let started = (1...5_000).map { "bot\($0)" }
        let report = ReloadReport(applied: true, generation: 2, started: started, stopped: ["old"], unchanged: 5_000)
        #expect(report.summary == "reloaded: configuration generation 2; started "
            + (1...20).map { "bot\($0)" }.joined(separator: ", ") + " and 4980 more; stopped old; restarted none; "
            + "5000 unchanged")
    }
}
