import ChatterBots
import Foundation

/// A scheduled job as the store keeps it: the bot's job (name, due time, payload, repeat rule) plus its
/// life: status, occurrence number, last run, owner. Occurrences are numbered from 1.
///
/// The store keeps the repeat rule as opaque JSON: the caller computes each next due time from it (in the
/// job's time zone) and passes it when an occurrence completes.
package struct ScheduledJobRecord: Hashable, Sendable, Identifiable {
    public var id: ScheduledJob.ID
    /// What kind of job it is: which handler runs it.
    public var name: String
    /// When the current occurrence is due.
    public var dueAt: Date
    public var payload: JSONValue
    /// The rule for later occurrences (opaque to the store; a `RepeatRule` when the bot API wrote it);
    /// nil for a one-off job.
    public var repeatRule: JSONValue?
    /// The time zone identifier the rule is read in, e.g. `America/Toronto`.
    public var timeZone: String?
    public var status: Status
    /// The number of the current occurrence (the one due at `dueAt`, or running); completed ones are below it.
    public var occurrence: Int
    public var lastFiredAt: Date?
    public var createdAt: Date
    public var owner: StateScope

    public init(
        id: ScheduledJob.ID, name: String, dueAt: Date, payload: JSONValue, repeatRule: JSONValue?, timeZone: String?,
        status: Status, occurrence: Int, lastFiredAt: Date?, createdAt: Date, owner: StateScope
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
        /// Its occurrences kept crashing the process and were quarantined: none runs until a retry resumes it.
        case paused

        /// Whether the job will not run again.
        public var isFinished: Bool { self == .done || self == .cancelled }
    }

    /// Whether the job repeats.
    public var isRepeating: Bool { repeatRule != nil }

    /// The job as the bot API shows it, its repeat rule read as a `RepeatRule`.
    ///
    /// - Throws: ``BotStoreError/corruptRecord(table:key:reason:)`` when the stored rule is not a `RepeatRule`.
    public func scheduledJob() throws(BotStoreError) -> ScheduledJob {
        var rule: RepeatRule?
        if let repeatRule {
            do {
                rule = try repeatRule.decode(as: RepeatRule.self)
            } catch {
                throw .corruptRecord(table: "scheduled_jobs", key: id.rawValue, reason: "repeat_rule: \(error)")
            }
        }
        return ScheduledJob(id: id, name: name, dueAt: dueAt, repeatRule: rule, payload: payload, occurrence: occurrence)
    }
}

/// A job to add to the schedule.
package struct NewScheduledJob: Hashable, Sendable {
    /// The job's id; adding a job whose id exists changes nothing, so a derived id makes adding idempotent.
    public var id: ScheduledJob.ID
    public var name: String
    public var dueAt: Date
    public var payload: JSONValue
    public var repeatRule: JSONValue?
    public var timeZone: String?
    public var owner: StateScope

    /// A job due at `dueAt`; `id` defaults to a random UUID.
    public init(
        id: ScheduledJob.ID = ScheduledJob.ID(UUID().uuidString.lowercased()), name: String, dueAt: Date,
        payload: JSONValue = .null, repeatRule: JSONValue? = nil, timeZone: String? = nil, owner: StateScope = .global
    ) {
        self.id = id
        self.name = name
        self.dueAt = dueAt
        self.payload = payload
        self.repeatRule = repeatRule
        self.timeZone = timeZone
        self.owner = owner
    }

    /// The job a bot scheduled through its context: its `RepeatRule` stored as JSON, with the rule's time
    /// zone (daily and weekly rules) as the job's.
    public init(_ job: ScheduledJob, owner: StateScope = .global) throws(BotStoreError) {
        var rule: JSONValue?
        var timeZone: String?
        if let repeatRule = job.repeatRule {
            do {
                rule = try JSONValue(encoding: repeatRule)
            } catch {
                throw .unencodableValue(key: job.id.rawValue, type: "RepeatRule", reason: "\(error)")
            }
            switch repeatRule {
            case .every: break
            case .daily(_, let zone), .weekly(_, _, let zone): timeZone = zone.identifier
            }
        }
        self.init(id: job.id, name: job.name, dueAt: job.dueAt, payload: job.payload, repeatRule: rule, timeZone: timeZone, owner: owner)
    }
}
