/// How long the service asks a client to wait before it tries again, read by one set of rules wherever it comes
/// from: the `Retry-After` header of a 429 (`RATE_LIMITED`) and the reason of a WebSocket close 4008.
///
/// Seconds are a non-negative decimal number (`30`, `12.5`, `1e3`), whitespace around allowed. A header may
/// instead carry an HTTP-date (RFC 9110 §5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`, or the obsolete RFC 850 and
/// asctime forms), which becomes the time left until that instant. Anything else is unreadable (nil), and each
/// caller says what it does then. Waits longer than `longest` are cut to it, so no value can overflow a `Duration`.
public enum RetryAfter {
    /// The longest wait returned: 2^31 − 1 seconds (about 68 years), far beyond any wait a client obeys.
    public static let longest: Duration = .seconds(Int32.max)

    /// The wait in `text` when it is a number of seconds: the close reason of a 4008, or a `Retry-After` in
    /// delta-seconds form. Nil for anything else, including negative numbers, `inf` and `nan`.
    public static func seconds(in text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard isDecimalNumber(trimmed.utf8), let seconds = Double(trimmed), seconds.isFinite else { return nil }
        return seconds >= longest.clockSeconds ? longest : .seconds(seconds)
    }

    /// The wait a `Retry-After` header asks for at `now`: its seconds (as `seconds(in:)`), or the time from `now`
    /// until its HTTP-date (zero for a date already past). Nil when the value is neither.
    public static func delay(inHeader value: String, now: Date) -> Duration? {
        if let seconds = seconds(in: value) { return seconds }
        guard let date = HTTPDate.parse(value.trimmingCharacters(in: .whitespacesAndNewlines), now: now) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return seconds >= longest.clockSeconds ? longest : .seconds(seconds)
    }

    /// `1*DIGIT [ "." 1*DIGIT ] [ ("e" / "E") [ "+" / "-" ] 1*DIGIT ]`: JSON's number grammar without a sign,
    /// checked before `Double(_:)`, which would also take `inf`, `nan` and hexadecimal.
    private static func isDecimalNumber(_ utf8: String.UTF8View) -> Bool {
        var bytes = utf8.makeIterator()
        var byte = bytes.next()
        func digits() -> Bool {
            var count = 0
            while let current = byte, current >= UInt8(ascii: "0"), current <= UInt8(ascii: "9") {
                count += 1
                byte = bytes.next()
            }
            return count > 0
        }
        guard digits() else { return false }
        if byte == UInt8(ascii: ".") {
            byte = bytes.next()
            guard digits() else { return false }
        }
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            byte = bytes.next()
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { byte = bytes.next() }
            guard digits() else { return false }
        }
        return byte == nil
    }
}

/// The three HTTP-date forms of RFC 9110 §5.6.7, always GMT: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// which senders use, and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`) forms, which recipients must still accept.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let shortDays: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays: Set<Substring> = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    /// The instant `text` names; nil when it is not an HTTP-date. `now` places the two-digit year of RFC 850.
    static func parse(_ text: String, now: Date) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        switch parts.count {
        case 6:  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard let dayName = parts[0].dropLastIfComma(), shortDays.contains(dayName),
                let day = number(parts[1], digits: 2...2), let month = month(parts[2]),
                let year = number(parts[3], digits: 4...4), parts[5] == "GMT"
            else { return nil }
            return date(year: year, month: month, day: day, time: parts[4])
        case 4:  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard let dayName = parts[0].dropLastIfComma(), longDays.contains(dayName), date.count == 3,
                let day = number(date[0], digits: 2...2), let month = month(date[1]),
                let shortYear = number(date[2], digits: 2...2), parts[3] == "GMT"
            else { return nil }
            return self.date(year: fullYear(shortYear, now: now), month: month, day: day, time: parts[2])
        case 5:  // asctime: Sun Nov  6 08:49:37 1994
            guard shortDays.contains(parts[0]), let month = month(parts[1]), let day = number(parts[2], digits: 1...2),
                let year = number(parts[4], digits: 4...4)
            else { return nil }
            return date(year: year, month: month, day: day, time: parts[3])
        default:
            return nil
        }
    }

    /// The value of a field of `digits` ASCII digits, nothing else (no sign, no space).
    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }

    private static func month(_ name: Substring) -> Int? {
        months.firstIndex(of: String(name)).map { $0 + 1 }
    }

    /// The year of a two-digit year: the one within 50 years of `now`'s (RFC 9110: a year that would lie more than
    /// 50 years in the future is the most recent past year with those digits).
    private static func fullYear(_ shortYear: Int, now: Date) -> Int {
        let currentYear = ISO8601Timestamp.civilFromDays(Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        if year <= currentYear - 50 { year += 100 }
        return year
    }

    /// The instant of a GMT date and an `HH:MM:SS` time; nil when a field is out of range.
    private static func date(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3, let hour = number(fields[0], digits: 2...2),
            let minute = number(fields[1], digits: 2...2), let second = number(fields[2], digits: 2...2),
            hour < 24, minute < 60, second <= 60,  // 60: a leap second, as the grammar allows
            day >= 1, day <= ISO8601Timestamp.daysIn(month: month, year: year)
        else { return nil }
        let days = ISO8601Timestamp.daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + Int64(hour * 3600 + minute * 60 + second)))
    }
}

extension Substring {
    fileprivate func dropLastIfComma() -> Substring? {
        last == "," ? dropLast() : nil
    }
}
