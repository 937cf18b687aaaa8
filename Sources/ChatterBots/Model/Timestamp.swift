/// A point in time with millisecond precision, as the Chatter API writes it: ISO 8601 UTC with
/// milliseconds, `2026-10-22T14:03:11.482Z`.
///
/// The wire models use `Timestamp` rather than `Date` so that they encode and decode the same way with
/// any `JSONEncoder`/`JSONDecoder` configuration. The wire form is canonical: a timestamp always encodes as
/// UTC with exactly three fraction digits, so a time the API wrote re-encodes byte for byte. Decoding is
/// lenient and normalises: `…T14:03:11Z`, `…T14:03:11.4Z`, a longer fraction (truncated to the millisecond)
/// and an offset such as `+02:00` are accepted, and re-encode in the canonical form (`…T14:03:11.000Z`).
/// Parsing and formatting are hand-written (no `DateFormatter`): the runtime decodes thousands of
/// messages per second.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    /// The instant `millisecondsSince1970` milliseconds after 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The timestamp nearest to `date`, rounded to the millisecond; an instant beyond what `Int64` milliseconds
    /// hold (±292 million years) is the nearest end, and a date that is not a number is the epoch.
    public init(_ date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        millisecondsSince1970 = milliseconds.isNaN ? 0 : Int64(exactly: milliseconds) ?? (milliseconds < 0 ? .min : .max)
    }

    /// Parses an ISO 8601 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1 to 9 digits
    /// (kept to the millisecond, truncated), then `Z` or an offset `±HH:MM`.
    public init(iso8601 text: String) throws(TimestampFormatError) {
        var text = text
        let parsed = text.withUTF8 { ISO8601Timestamp.parse($0) }
        switch parsed {
        case .success(let milliseconds): millisecondsSince1970 = milliseconds
        case .failure(let failure): throw TimestampFormatError(input: text, reason: failure.reason)
        }
    }

    /// The same instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    /// The canonical form, `2026-10-22T14:03:11.482Z` (always UTC, always three fraction digits).
    public var iso8601: String { ISO8601Timestamp.format(millisecondsSince1970) }

    public var description: String { iso8601 }

    /// The timestamp `duration` later (earlier when negative), truncated to the millisecond; past the end of what
    /// a timestamp holds it stays at that end (a cooldown of 10^16 seconds is "forever", not a crash).
    public func advanced(by duration: Duration) -> Timestamp {
        let end: Int64 = duration < .zero ? .min : .max
        guard let step = duration.exactMilliseconds else { return Timestamp(millisecondsSince1970: end) }
        let (sum, overflow) = millisecondsSince1970.addingReportingOverflow(step)
        return Timestamp(millisecondsSince1970: overflow ? end : sum)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.millisecondsSince1970 < rhs.millisecondsSince1970 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try Timestamp(iso8601: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

/// A string that is not an ISO 8601 date-time the API could have written; `reason` says what is wrong.
public struct TimestampFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text that failed to parse.
    public var input: String
    /// What is wrong with it, e.g. `day 31 is out of range`.
    public var reason: String
    public var description: String { "Not an ISO 8601 UTC timestamp (\(reason)): \"\(input.prefix(64))\"" }
}

/// The byte-level ISO 8601 parser and formatter behind `Timestamp`.
enum ISO8601Timestamp {
    struct ParseFailure: Error {
        let reason: String
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Int64, ParseFailure> {
        var index = 0
        let count = bytes.count

        func digits(_ n: Int) -> Int? {
            guard index + n <= count else { return nil }
            var value = 0
            for offset in 0..<n {
                let byte = bytes[index + offset]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += n
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")) else { return .failure(ParseFailure(reason: "expected the year YYYY-")) }
        guard let month = digits(2), expect(UInt8(ascii: "-")) else { return .failure(ParseFailure(reason: "expected the month MM-")) }
        guard let day = digits(2) else { return .failure(ParseFailure(reason: "expected the day DD")) }
        guard expect(UInt8(ascii: "T")) else { return .failure(ParseFailure(reason: "expected T between date and time")) }
        guard let hour = digits(2), expect(UInt8(ascii: ":")) else { return .failure(ParseFailure(reason: "expected the hour HH:")) }
        guard let minute = digits(2), expect(UInt8(ascii: ":")) else { return .failure(ParseFailure(reason: "expected the minute MM:")) }
        guard let second = digits(2) else { return .failure(ParseFailure(reason: "expected the second SS")) }
        guard (1...12).contains(month) else { return .failure(ParseFailure(reason: "month \(month) is out of range")) }
        guard (1...daysIn(month: month, year: year)).contains(day) else { return .failure(ParseFailure(reason: "day \(day) is out of range")) }
        guard hour < 24, minute < 60, second < 60 else { return .failure(ParseFailure(reason: "time of day is out of range")) }

        var milliseconds = 0
        if expect(UInt8(ascii: ".")) {
            var fractionDigits = 0
            while index < count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if fractionDigits < 3 { milliseconds = milliseconds * 10 + Int(bytes[index] - 0x30) }
                fractionDigits += 1
                index += 1
            }
            guard (1...9).contains(fractionDigits) else { return .failure(ParseFailure(reason: "the fraction needs 1 to 9 digits")) }
            if fractionDigits < 3 {
                for _ in fractionDigits..<3 { milliseconds *= 10 }
            }
        }

        var offsetMinutes = 0
        if expect(UInt8(ascii: "Z")) {
            offsetMinutes = 0
        } else if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = digits(2), expect(UInt8(ascii: ":")), let offsetMinute = digits(2),
                offsetHours < 24, offsetMinute < 60
            else { return .failure(ParseFailure(reason: "expected a zone offset ±HH:MM")) }
            offsetMinutes = sign * (offsetHours * 60 + offsetMinute)
        } else {
            return .failure(ParseFailure(reason: "expected Z or a zone offset"))
        }
        guard index == count else { return .failure(ParseFailure(reason: "unexpected characters after the time")) }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return .success(seconds * 1000 + Int64(milliseconds))
    }

    static func format(_ millisecondsSince1970: Int64) -> String {
        let (secondsTotal, milliseconds) = floorDivide(millisecondsSince1970, 1000)
        let (days, secondOfDay) = floorDivide(secondsTotal, 86_400)
        let (year, month, day) = civilFromDays(days)
        let hour = Int(secondOfDay / 3600), minute = Int(secondOfDay % 3600 / 60), second = Int(secondOfDay % 60)
        guard (0...9999).contains(year) else {
            // Outside four-digit years ISO 8601 needs an expanded form; the API never sends one.
            let yearText = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
            return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(Int(milliseconds), 3))Z"
        }
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int, _ width: Int, at position: Int) {
                var value = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(0x30 + value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(Int(milliseconds), 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let quotient = a / b, remainder = a % b
        return remainder < 0 ? (quotient - 1, remainder + b) : (quotient, remainder)
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
