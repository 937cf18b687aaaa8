import ChatterBots

/// The `options` of a `reminders` bot in `bots.json`:
///
/// ```json
/// {"defaultTimeZone": "Europe/Lisbon", "defaultTime": "09:00", "lateAfterSeconds": 120,
///  "maximumRemindersPerPerson": 50, "names": ["remy"]}
/// ```
/// - `defaultTimeZone` (IANA name, default `"UTC"`): the zone of a person who has not said "timezone …".
/// - `defaultTime` (`"HH:MM"`, default `"09:00"`): the time of "tomorrow" or "every monday" said without one.
/// - `lateAfterSeconds` (default 120): a reminder firing later than this after its time (the bot was offline)
///   says so: "(late: I was offline at 14:40)".
/// - `maximumRemindersPerPerson` (1 or more, default 50): more are refused with a message.
/// - `names` (default none): more names the bot answers to as `@name` in groups, besides its name in
///   `bots.json` and its account's username.
public struct ReminderBotOptions: Sendable, Hashable {
    public var defaultTimeZone: TimeZone
    public var defaultTime: TimeOfDay
    public var lateAfter: Duration
    public var maximumRemindersPerPerson: Int
    public var names: [String]

    public init(
        defaultTimeZone: TimeZone = TimeZone(identifier: "UTC") ?? .gmt,
        defaultTime: TimeOfDay = ReminderCommandParser.standardDefaultTime,
        lateAfter: Duration = ReminderAlert.defaultGrace, maximumRemindersPerPerson: Int = 50, names: [String] = []
    ) {
        self.defaultTimeZone = defaultTimeZone
        self.defaultTime = defaultTime
        self.lateAfter = lateAfter
        self.maximumRemindersPerPerson = maximumRemindersPerPerson
        self.names = names
    }
}

extension ReminderBotOptions: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case defaultTimeZone, defaultTime, lateAfterSeconds, maximumRemindersPerPerson, names
    }

    public init(from decoder: any Decoder) throws {
        try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        if container.contains(.defaultTimeZone) { defaultTimeZone = try container.decodeTimeZone(forKey: .defaultTimeZone) }
        if container.contains(.defaultTime) { defaultTime = try container.decodeTimeOfDay(forKey: .defaultTime) }
        if let lateAfter = try container.decodeSeconds(forKey: .lateAfterSeconds) { self.lateAfter = lateAfter }
        if let maximum = try container.decodeIfPresent(Int.self, forKey: .maximumRemindersPerPerson) {
            guard maximum >= 1 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .maximumRemindersPerPerson, in: container, debugDescription: "must be 1 or more, got \(maximum)")
            }
            maximumRemindersPerPerson = maximum
        }
        names = try container.decodeIfPresent([String].self, forKey: .names) ?? []
        if let bad = names.first(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) || $0.hasPrefix("@") }) {
            throw DecodingError.dataCorruptedError(
                forKey: .names, in: container, debugDescription: "\"\(bad)\" is not a name; write names without \"@\" or spaces")
        }
    }
}
