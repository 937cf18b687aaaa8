import ChatterBots

/// Finds the IANA time zone a person means by a name typed in chat.
enum TimeZoneDirectory {
    private static let known: [String] = TimeZone.knownTimeZoneIdentifiers

    /// The zone for `name`, or nil when it names none. Accepted, case-insensitively: an IANA identifier
    /// ("Europe/Lisbon", "america/new_york"), spaces for underscores ("America/New York"), a city alone when
    /// only one zone has it ("Lisbon", "new york"), and UTC/GMT. Every result is checked with `TimeZone(identifier:)`.
    static func zone(named name: String) -> TimeZone? {
        let typed = name.split(whereSeparator: \.isWhitespace).joined(separator: "_")
        guard !typed.isEmpty else { return nil }
        let lowered = typed.lowercased()
        if ["utc", "gmt", "etc/utc", "etc/gmt", "z", "zulu"].contains(lowered) {
            return TimeZone(identifier: "UTC")
        }
        if let exact = known.first(where: { $0.lowercased() == lowered }) {
            return TimeZone(identifier: exact)
        }
        // Identifiers Foundation knows but does not list, such as links ("Asia/Calcutta"); an area is required so
        // abbreviations ("EST") and raw offsets ("GMT+1") are not taken for places.
        if typed.contains("/"), let zone = TimeZone(identifier: typed) {
            return zone
        }
        let cities = known.filter { $0.split(separator: "/").last?.lowercased() == lowered }
        if cities.count == 1, let identifier = cities.first {
            return TimeZone(identifier: identifier)
        }
        return nil
    }
}
