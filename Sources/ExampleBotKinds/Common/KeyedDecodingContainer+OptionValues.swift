import ChatterBots

/// Readers for the value types bot options share, each failing with a message that says how to write it.
extension KeyedDecodingContainer {
    /// An IANA time zone written as its identifier ("Europe/Lisbon").
    func decodeTimeZone(forKey key: Key) throws -> TimeZone {
        let identifier = try decode(String.self, forKey: key)
        guard let zone = TimeZone(identifier: identifier) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "unknown time zone \"\(identifier)\"; use an IANA name like \"Europe/Lisbon\" or \"UTC\"")
        }
        return zone
    }

    /// A time of day written "HH:MM" (24-hour).
    func decodeTimeOfDay(forKey key: Key) throws -> TimeOfDay {
        let text = try decode(String.self, forKey: key)
        guard let time = TimeOfDay(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "\"\(text)\" is not a time; write it as \"HH:MM\" on a 24-hour clock, e.g. \"07:30\"")
        }
        return time
    }

    /// An instant written in ISO 8601 with a zone ("2026-12-01T09:00:00Z", "2026-12-01T09:00:00+01:00").
    func decodeInstant(forKey key: Key) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let timestamp = try? Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\"\(text)\" is not a date and time; write ISO 8601 with a zone, e.g. \"2026-12-01T09:00:00Z\"")
        }
        return timestamp.date
    }

    /// A number of seconds, at least 0.
    func decodeSeconds(forKey key: Key) throws -> Duration? {
        guard let seconds = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard seconds >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "must be 0 or more seconds, got \(seconds)")
        }
        return .seconds(seconds)
    }
}
