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
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="0.001"} 0"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="0.005"} 1"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="0.025"} 3"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="30"} 3"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="+Inf"} 4"#))
        #expect(lines.contains("chatterbots_handler_duration_seconds_sum 45.043"))
        #expect(lines.contains("chatterbots_handler_duration_seconds_count 4"))
    }

    @Test func theHandlerHistogramIsOneForTheProcessWhateverTheNumberOfBots() {
        let bots = (0..<100).map { status("bot\($0)", connected: true, latencies: [0.02]) }
        let lines = MetricsExposition(bots: bots).text.split(separator: "\n").map(String.init)
        let histogram = lines.filter { $0.hasPrefix("chatterbots_handler_duration_seconds") }
        #expect(histogram.count == HandlerLatencySummary.bucketBounds.count + 3)
        #expect(histogram.allSatisfy { !$0.contains("bot=") })
        #expect(histogram.contains(#"chatterbots_handler_duration_seconds_bucket{le="0.01"} 0"#))
        #expect(histogram.contains(#"chatterbots_handler_duration_seconds_bucket{le="0.025"} 100"#))
        #expect(histogram.contains("chatterbots_handler_duration_seconds_count 100"))
    }

    @Test func theHandlerHistogramKeepsTheCallsOfRetiredBots() {
        var retired = HandlerLatencySummary()
        retired.record(seconds: 2)
        var exposition = MetricsExposition(bots: [status("a", connected: true, latencies: [0.02])])
        exposition.retiredHandlerLatency = retired
        let lines = Set(exposition.text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="0.025"} 1"#))
        #expect(lines.contains(#"chatterbots_handler_duration_seconds_bucket{le="2.5"} 2"#))
        #expect(lines.contains("chatterbots_handler_duration_seconds_sum 2.02"))
        #expect(lines.contains("chatterbots_handler_duration_seconds_count 2"))
    }

    @Test func aRefusedLastReloadShowsAsZeroBesideTheGenerationInForce() {
        var exposition = MetricsExposition(bots: [status("a", connected: true)])
        exposition.configuration = ConfigurationGeneration(
            generation: 3, loadedAt: Date(),
            lastReload: .init(applied: false, at: Date(), errors: ["bot \"a\", kind: is empty"]))
        let lines = exposition.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE chatterbots_configuration_generation gauge"))
        #expect(lines.contains("chatterbots_configuration_generation 3"))
        #expect(lines.contains("# TYPE chatterbots_configuration_last_reload_successful gauge"))
        #expect(lines.contains("chatterbots_configuration_last_reload_successful 0"))
    }

    @Test func beforeAnyReloadTheLastReloadCountsAsSuccessful() {
        var exposition = MetricsExposition(bots: [status("a", connected: true)])
        exposition.configuration = ConfigurationGeneration(generation: 1, loadedAt: Date())
        let lines = exposition.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("chatterbots_configuration_last_reload_successful 1"))
    }

    @Test func aProcessThatDoesNotReloadHasNoConfigurationFamilies() {
        let text = MetricsExposition(bots: [status("a", connected: true)]).text
        #expect(!text.contains("chatterbots_configuration_"))
    }

    @Test func theMakeThreadsShowAsAGaugeByStateWhenCounted() {
        var exposition = MetricsExposition(bots: [status("a", connected: true)])
        #expect(!exposition.text.contains("chatterbots_make_threads"))
        exposition.makeThreads = MakeThreads.Census(running: 2, givenUp: 1)
        let lines = exposition.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("# TYPE chatterbots_make_threads gauge"))
        #expect(lines.contains(#"chatterbots_make_threads{state="running"} 2"#))
        #expect(lines.contains(#"chatterbots_make_threads{state="given_up"} 1"#))
    }

    @Test func labelValuesAreEscaped() {
        #expect(MetricsExposition.escapeLabelValue(#"a"b\c"# + "\nd") == #"a\"b\\c\nd"#)
    }
}
