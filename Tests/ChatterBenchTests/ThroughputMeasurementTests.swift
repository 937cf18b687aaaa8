@testable import ChatterBench
import Testing

/// A flood's figures are trusted only over an interval long enough for every runtime's rate to settle.
@Suite("throughput measurements")
struct ThroughputMeasurementTests {
    private func measurement(messages: Int, seconds: Double) -> ThroughputScenario.Measurement {
        ThroughputScenario.Measurement(
            messages: messages, seconds: seconds, serverCPU: 0.3, fleetCPU: 1.2, driverCPU: 0.02, duplicateReplies: 0,
            sendErrors: 0, fleetErrors: 0, steal: 0)
    }

    @Test func aFloodOverLessThanTwoSecondsSaysHowManyMessagesWouldDo() {
        let note = measurement(messages: 20_000, seconds: 0.38).shortIntervalNote(runtime: "swift")
        #expect(note == "swift: measured over 0.38 s, too short for a steady rate; --messages 110000 would last about 2 s at this rate (a longer flood's rate differs: try more).")
    }

    @Test func aFloodJustShortOfTwoSecondsDoesNotReadAsTwo() {
        let note = measurement(messages: 40_000, seconds: 1.996).shortIntervalNote(runtime: "c")
        #expect(note?.hasPrefix("c: measured over 1.99 s,") == true)
    }

    @Test func aFloodOverTwoSecondsOrMoreGetsNoNote() {
        #expect(measurement(messages: 200_000, seconds: 3.0).shortIntervalNote(runtime: "swift") == nil)
        #expect(measurement(messages: 40_000, seconds: 2.0).shortIntervalNote(runtime: "python") == nil)
    }
}
