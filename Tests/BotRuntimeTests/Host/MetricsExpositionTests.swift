@testable import BotRuntime
import Foundation
import Testing

@Suite("Prometheus exposition")
struct MetricsExpositionTests {
    func status(_ name: String, connected: Bool, latencies: [Double] = []) -> BotStatus {
        var latency = HandlerLatencySummary()
        for seconds in latencies { latency.record(seconds: seconds) }
        return BotStatus(
            name: name, state: connected ? .live : .reconnecting, connected: connected, since: Date(), userId: nil,
            lastError: nil, reconnects: 2, messagesIn: 7, messagesOut: 5, outboxDepth: 1, handlerLatency: latency,
            stopReason: nil, messagesExpired: 3)
    }

    @Test func everyFamilyHasOneHelpAndOneTypeLineBeforeItsSamples() {
        let text = MetricsExposition(bots: [status("a", connected: true), status("b", connected: false)]).text
        let lines = text.split(separator: "\n").map(String.init)
        let families = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(families == [
            "chatterbots_bots", "chatterbots_bots_connected", "chatterbots_bot_connected", "chatterbots_reconnects_total",
            "chatterbots_messages_received_total", "chatterbots_messages_sent_total", "chatterbots_outbox_depth",
            "chatterbots_messages_expired_total", "chatterbots_quarantined", "chatterbots_handler_duration_seconds",
        ])
        for family in families {
            #expect(lines.filter { $0.hasPrefix("# HELP \(family) ") }.count == 1)
        }
        #expect(lines.contains("# TYPE chatterbots_reconnects_total counter"))
        #expect(lines.contains("# TYPE chatterbots_outbox_depth gauge"))
        #expect(lines.contains("# TYPE chatterbots_handler_duration_seconds histogram"))
        #expect(lines.contains("chatterbots_bots 2"))
        #expect(lines.contains("chatterbots_bots_connected 1"))
        #expect(lines.contains(#"chatterbots_bot_connected{bot="b"} 0"#))
        #expect(lines.contains(#"chatterbots_messages_sent_total{bot="a"} 5"#))
        #expect(lines.contains("# TYPE chatterbots_messages_expired_total counter"))
        #expect(lines.contains(#"chatterbots_messages_expired_total{bot="b"} 3"#))
        #expect(text.hasSuffix("\n"))
    }

    @Test func histogramBucketsAreCumulativeWithSumAndCount() {
        let text = MetricsExposition(bots: [status("a", connected: true, latencies: [0.003, 0.02, 0.02, 45])]).text
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{bot="a",le="0.001"} 0"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{bot="a",le="0.005"} 1"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{bot="a",le="0.025"} 3"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{bot="a",le="30"} 3"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{bot="a",le="+Inf"} 4"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_sum{bot="a"} 45.043"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_count{bot="a"} 4"#))
    }

    @Test func labelValuesAreEscaped() {
        #expect(MetricsExposition.escapeLabelValue(#"a"b\c"# + "\nd") == #"a\"b\\c\nd"#)
    }
}
