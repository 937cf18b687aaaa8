/// A job a bot scheduled: due at `dueAt`, optionally repeating, carrying a JSON payload.
/// The runtime keeps jobs in the bot's store, so they survive restarts.
public struct ScheduledJob: Identifiable, Hashable, Sendable, Codable {
    /// The job's id, assigned when it is scheduled.
    public typealias ID = Identifier<ScheduledJob>

    /// Which job this is; cancel it with this id.
    public var id: ID
    /// The bot's own name for the job kind, e.g. `"reminder"`.
    public var name: String
    /// When this occurrence is due (millisecond precision).
    public var dueAt: Date
    /// How the job repeats after this occurrence; nil for a one-off job.
    public var repeatRule: RepeatRule?
    /// What the bot stored with the job, e.g. the reminder's text; read it with `payload(of:)` and the job's `JobKind`.
    public var payload: JSONValue
    /// Which run of the job this is, from 1; the derived clientMessageIds of its sends are named after it.
    public var occurrence: Int

    /// A job as the runtime's store holds it (bot code gets jobs from `BotJobs.schedule`, tests may build them).
    public init(id: ID, name: String, dueAt: Date, repeatRule: RepeatRule? = nil, payload: JSONValue = .null, occurrence: Int = 1) {
        self.id = id
        self.name = name
        self.dueAt = dueAt
        self.repeatRule = repeatRule
        self.payload = payload
        self.occurrence = occurrence
    }

    /// The payload decoded as `type`.
    public func payload<Payload: Decodable>(as type: Payload.Type) throws -> Payload {
        try payload.decode(as: type)
    }

    enum CodingKeys: String, CodingKey { case id, name, dueAt, repeatRule, payload, occurrence }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        dueAt = try container.decode(Timestamp.self, forKey: .dueAt).date
        repeatRule = try container.decodeIfPresent(RepeatRule.self, forKey: .repeatRule)
        payload = try container.decodeIfPresent(JSONValue.self, forKey: .payload) ?? .null
        occurrence = try container.decodeIfPresent(Int.self, forKey: .occurrence) ?? 1
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(Timestamp(dueAt), forKey: .dueAt)
        try container.encode(repeatRule, forKey: .repeatRule)
        try container.encode(payload, forKey: .payload)
        try container.encode(occurrence, forKey: .occurrence)
    }
}
