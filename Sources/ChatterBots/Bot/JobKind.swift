/// A kind of job with the type of its payload: `static let reminder = JobKind<Reminder>("reminder")`.
/// Schedule it with `BotJobs.schedule(_:at:repeating:payload:)` and read an occurrence's payload in
/// `onScheduledJob` with `ScheduledJob.payload(of:)`.
public struct JobKind<Payload: Codable & Sendable>: Hashable, Sendable {
    /// The name jobs of this kind are stored under; keep it stable, or stored jobs are no longer recognised.
    public let name: String

    /// A kind named `name`, unique among the bot's job kinds.
    public init(_ name: String) { self.name = name }
}

extension ScheduledJob {
    /// The payload decoded as `kind`'s payload type, or nil when the job is of another kind.
    public func payload<Payload>(of kind: JobKind<Payload>) throws -> Payload? {
        guard name == kind.name else { return nil }
        return try payload.decode(as: Payload.self)
    }
}
