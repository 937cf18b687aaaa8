import Foundation

/// The bot's scheduled jobs: part of the handler's unit of work. A schedule or cancellation is committed with the
/// handler's sends and state when it returns and discarded when it throws; jobs scheduled while handling a
/// message or an occurrence get ids derived from it, so a handler run again after a crash schedules nothing twice.
public protocol BotJobs: Sendable {
    /// The time jobs are due against: the context's `now`.
    var now: Date { get }

    /// Schedules a job due at `date` (run at once if it is in the past) with a JSON payload. Prefer the typed
    /// `schedule(_:at:repeating:payload:)`.
    func schedule(named name: String, at date: Date, repeating rule: RepeatRule?, payload: JSONValue) async throws -> ScheduledJob

    /// Cancels a job; cancelling a job that does not exist (any more) does nothing.
    func cancel(_ id: ScheduledJob.ID) async throws

    /// The bot's scheduled jobs of every kind, soonest first.
    func scheduled() async throws -> [ScheduledJob]
}

extension BotJobs {
    /// Schedules a job of `kind` due at `date`, carrying `payload`.
    @discardableResult
    public func schedule<Payload>(
        _ kind: JobKind<Payload>, at date: Date, repeating rule: RepeatRule? = nil, payload: Payload
    ) async throws -> ScheduledJob {
        try await schedule(named: kind.name, at: date, repeating: rule, payload: try JSONValue(encoding: payload))
    }

    /// Schedules a job of `kind` due `delay` from `now`, carrying `payload`.
    @discardableResult
    public func schedule<Payload>(
        _ kind: JobKind<Payload>, after delay: Duration, repeating rule: RepeatRule? = nil, payload: Payload
    ) async throws -> ScheduledJob {
        try await schedule(kind, at: Timestamp(now).advanced(by: delay).date, repeating: rule, payload: payload)
    }

    /// The scheduled jobs of `kind`, soonest first.
    public func scheduled<Payload>(_ kind: JobKind<Payload>) async throws -> [ScheduledJob] {
        try await scheduled().filter { $0.name == kind.name }
    }
}
