import Foundation
import Testing

@testable import ChatterBots

@Suite("ISO 8601 timestamps")
struct TimestampTests {
    @Test(arguments: [
        "2026-10-22T14:03:11.482Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "2000-02-29T12:00:00.001Z",
        "2100-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
    ])
    func canonicalFormRoundTripsByteExact(text: String) throws {
        #expect(try Timestamp(iso8601: text).iso8601 == text)
    }

    @Test func knownInstantHasItsEpochMilliseconds() throws {
        #expect(try Timestamp(iso8601: "2026-10-22T14:03:11.482Z").millisecondsSince1970 == 1_792_677_791_482)
        #expect(try Timestamp(iso8601: "1969-12-31T23:59:59.999Z").millisecondsSince1970 == -1)
    }

    @Test func everyMillisecondOfADayAcrossYearsRoundTrips() throws {
        // A walk across leap and non-leap years, month ends and the epoch, in uneven steps.
        var milliseconds: Int64 = -2_208_988_800_000  // 1900-01-01
        while milliseconds < 4_102_444_800_000 {  // 2100-01-01
            let timestamp = Timestamp(millisecondsSince1970: milliseconds)
            #expect(try Timestamp(iso8601: timestamp.iso8601) == timestamp)
            milliseconds += 86_399_937 * 13 + 7
        }
    }

    @Test func formattingAgreesWithFoundation() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for milliseconds: Int64 in [0, 951_782_400_123, 1_792_677_791_482, 4_102_444_799_999] {
            let timestamp = Timestamp(millisecondsSince1970: milliseconds)
            #expect(timestamp.iso8601 == formatter.string(from: timestamp.date))
        }
    }

    @Test func lenientInputsAreNormalised() throws {
        #expect(try Timestamp(iso8601: "2026-10-22T14:03:11Z").iso8601 == "2026-10-22T14:03:11.000Z")
        #expect(try Timestamp(iso8601: "2026-10-22T14:03:11.4Z").iso8601 == "2026-10-22T14:03:11.400Z")
        #expect(try Timestamp(iso8601: "2026-10-22T14:03:11.482917Z").iso8601 == "2026-10-22T14:03:11.482Z")
        #expect(try Timestamp(iso8601: "2026-10-22T16:03:11.482+02:00").iso8601 == "2026-10-22T14:03:11.482Z")
        #expect(try Timestamp(iso8601: "2026-10-22T09:33:11.482-04:30").iso8601 == "2026-10-22T14:03:11.482Z")
    }

    @Test(arguments: [
        ("2026-10-22T14:03:11Z", "2026-10-22T14:03:11.000Z"), ("2026-10-22T14:03:11.4Z", "2026-10-22T14:03:11.400Z"),
        ("2026-10-22T14:03:11.482917Z", "2026-10-22T14:03:11.482Z"), ("2026-10-22T16:03:11.482+02:00", "2026-10-22T14:03:11.482Z"),
        ("2026-10-22T14:03:11.482Z", "2026-10-22T14:03:11.482Z"),
    ])
    func decodedTimesReencodeInTheCanonicalWireForm(input: String, canonical: String) throws {
        let decoded = try JSONDecoder().decode([Timestamp].self, from: Data("[\"\(input)\"]".utf8))
        #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == "[\"\(canonical)\"]")
    }

    @Test(arguments: [
        "", "2026", "2026-10-22", "2026-10-22 14:03:11.482Z", "2026-10-22T14:03:11.482", "2026-13-01T00:00:00.000Z",
        "2026-02-29T00:00:00.000Z", "2026-04-31T00:00:00.000Z", "2026-10-22T24:00:00.000Z", "2026-10-22T14:60:00.000Z",
        "2026-10-22T14:03:60.000Z", "2026-10-22T14:03:11.Z", "2026-10-22T14:03:11.4829174561Z", "2026-10-22T14:03:11.482ZZ",
        "2026-10-22T14:03:11.482+0200", "+2026-10-22T14:03:11.482Z", "２026-10-22T14:03:11.482Z", "2026-1a-22T14:03:11.482Z",
        "2026-10-22T14:03:11.482z", "yesterday",
    ])
    func garbageIsRejected(text: String) {
        #expect(throws: TimestampFormatError.self) { try Timestamp(iso8601: text) }
    }

    @Test func decodingGarbageIsADecodingErrorNotACrash() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Timestamp.self, from: Data(#""2026-02-30T00:00:00.000Z""#.utf8)) }
    }

    @Test func dateConversionRoundsToTheMillisecond() {
        let timestamp = Timestamp(Date(timeIntervalSince1970: 1_792_677_791.4826))
        #expect(timestamp.millisecondsSince1970 == 1_792_677_791_483)
        #expect(Timestamp(timestamp.date) == timestamp)
    }

    @Test func advancingByADuration() {
        let start = Timestamp(millisecondsSince1970: 1_000)
        #expect(start.advanced(by: .seconds(2)).millisecondsSince1970 == 3_000)
        #expect(start.advanced(by: .milliseconds(-1_500)).millisecondsSince1970 == -500)
    }

    @Test func advancingPastWhatATimestampHoldsStaysAtThatEnd() {
        let now = Timestamp(millisecondsSince1970: 1_792_677_791_482)
        #expect(now.advanced(by: .seconds(10_000_000_000_000_000)).millisecondsSince1970 == .max)
        #expect(now.advanced(by: .seconds(-10_000_000_000_000_000)).millisecondsSince1970 == .min)
        #expect(Timestamp(millisecondsSince1970: .max - 1).advanced(by: .milliseconds(2)).millisecondsSince1970 == .max)
        #expect(Timestamp(millisecondsSince1970: .min + 1).advanced(by: .milliseconds(-2)).millisecondsSince1970 == .min)
    }

    @Test func aDateBeyondWhatATimestampHoldsIsTheNearestEnd() {
        #expect(Timestamp(Date(timeIntervalSince1970: 1e300)).millisecondsSince1970 == .max)
        #expect(Timestamp(Date(timeIntervalSince1970: -.infinity)).millisecondsSince1970 == .min)
        #expect(Timestamp(Date(timeIntervalSince1970: .nan)).millisecondsSince1970 == 0)
        #expect(Timestamp(millisecondsSince1970: .max).iso8601.hasSuffix("Z"))
        #expect(Timestamp(millisecondsSince1970: .min).iso8601.hasPrefix("-"))
    }

    @Test func parsingAndFormattingThroughput() throws {
        // A benchmark, not a timed assertion: it prints figures and checks the results are right.
        let texts = (0..<20_000).map { Timestamp(millisecondsSince1970: 1_792_677_791_482 + Int64($0) * 1_337).iso8601 }
        let clock = ContinuousClock()
        var parsed: [Timestamp] = []
        parsed.reserveCapacity(texts.count)
        let parseTime = try clock.measure { for text in texts { parsed.append(try Timestamp(iso8601: text)) } }
        var formatted: [String] = []
        formatted.reserveCapacity(texts.count)
        let formatTime = clock.measure { for timestamp in parsed { formatted.append(timestamp.iso8601) } }
        #expect(formatted == texts)
        print("Timestamp: parsed 20,000 in \(parseTime), formatted 20,000 in \(formatTime) (debug build)")
    }
}
