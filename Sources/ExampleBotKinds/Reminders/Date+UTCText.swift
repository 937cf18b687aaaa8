import ChatterBots

extension Date {
    /// This instant as "2025-12-01T14:40:00Z" (UTC, whole seconds), the form reminders store in JSON.
    var utcText: String {
        let reading = TimeZone.utc.wallClock(at: self)
        let time = reading.secondOfDay
        return "\(reading.date)T\(pad(time / 3_600, to: 2)):\(pad(time % 3_600 / 60, to: 2))"
            + ":\(pad(time % 60, to: 2))Z"
    }

    /// Parses exactly the form `utcText` writes; nil for anything else.
    init?(utcText text: String) {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, let date = LocalDate(iso8601: parts[0]), parts[1].hasSuffix("Z") else { return nil }
        let clock = parts[1].dropLast().split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              hour < 24, minute < 60, second < 60 else { return nil }
        let seconds = date.daysSinceEpoch * 86_400 + hour * 3_600 + minute * 60 + second
        self.init(timeIntervalSince1970: TimeInterval(seconds))
    }
}

extension TimeZone {
    /// Coordinated Universal Time.
    static let utc = TimeZone(secondsFromGMT: 0) ?? .gmt
}

extension KeyedDecodingContainer {
    /// Decodes an instant written as `Date.utcText`, failing with a message that shows the bad text.
    func decodeUTCText(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = Date(utcText: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "Expected a UTC time as \"yyyy-mm-ddTHH:mm:ssZ\", got \"\(text)\"")
        }
        return date
    }
}

extension Date {
    /// This instant with its fraction of a second dropped, so stored reminder times are whole seconds.
    var wholeSeconds: Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down))
    }
}

/// `value` in decimal with leading zeros up to `width` digits.
func pad(_ value: Int, to width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

extension Character {
    /// True for "0"..."9" only (not other scripts' digits, which `Int(_:)` would reject anyway).
    var isASCIIDigit: Bool {
        ("0"..."9").contains(self)
    }
}
