import ChatterBots
import Foundation

/// A job the bot runs at a time: a reminder, a daily digest. Its occurrences are numbered from 1.
///
/// The store keeps the repeat rule as opaque JSON: the caller computes each next due time from it (in the
/// job's time zone) and passes it when an occurrence completes.
public struct ScheduledJob: Hashable, Sendable, Identifiable {
    public typealias ID = Identifier<ScheduledJob>

    public var id: ID
    /// What kind of job it is: which handler runs it.
    public var name: String
    /// When the current occurrence is due.
    public var dueAt: Date
    public var payload: JSONValue
    /// The rule for later occurrences (opaque to the store); nil for a one-off job.
    public var repeatRule: JSONValue?
    /// The time zone identifier the rule is read in, e.g. `America/Toronto`.
    public var timeZone: String?
    public var status: Status
    /// The number of the current occurrence (the one due at `dueAt`, or running); completed ones are below it.
    public var occurrence: Int
    public var lastFiredAt: Date?
    public var createdAt: Date
    public var owner: BotScope

    public init(
        id: ID, name: String, dueAt: Date, payload: JSONValue, repeatRule: JSONValue?, timeZone: String?, status: Status,
        occurrence: Int, lastFiredAt: Date?, createdAt: Date, owner: BotScope
    ) {
        self.id = id
        self.name = name
        self.dueAt = dueAt
        self.payload = payload
        self.repeatRule = repeatRule
        self.timeZone = timeZone
        self.status = status
        self.occurrence = occurrence
        self.lastFiredAt = lastFiredAt
        self.createdAt = createdAt
        self.owner = owner
    }

    /// Where a job is in its life.
    public enum Status: String, Hashable, Sendable {
        /// Waiting for `dueAt`.
        case scheduled
        /// An occurrence is claimed and running. After a crash it is scheduled again with the same number.
        case running
        /// No occurrence left.
        case done
        /// Cancelled: no further occurrence runs.
        case cancelled

        /// Whether the job will not run again.
        public var isFinished: Bool { self == .done || self == .cancelled }
    }

    /// Whether the job repeats.
    public var isRepeating: Bool { repeatRule != nil }
}

/// A job to add to the schedule.
public struct NewScheduledJob: Hashable, Sendable {
    /// The job's id; adding a job whose id exists changes nothing, so a derived id makes adding idempotent.
    public var id: ScheduledJob.ID
    public var name: String
    public var dueAt: Date
    public var payload: JSONValue
    public var repeatRule: JSONValue?
    public var timeZone: String?
    public var owner: BotScope

    /// A job due at `dueAt`; `id` defaults to a random UUID.
    public init(
        id: ScheduledJob.ID = ScheduledJob.ID(UUID().uuidString.lowercased()), name: String, dueAt: Date,
        payload: JSONValue = .null, repeatRule: JSONValue? = nil, timeZone: String? = nil, owner: BotScope = .global
    ) {
        self.id = id
        self.name = name
        self.dueAt = dueAt
        self.payload = payload
        self.repeatRule = repeatRule
        self.timeZone = timeZone
        self.owner = owner
    }
}
