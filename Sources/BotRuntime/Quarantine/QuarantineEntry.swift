import ChatterBots
import Foundation

/// Handler work that was running when the process died, and how many times (its attempts).
package struct CrashSuspect: Hashable, Sendable {
    /// What names the work across restarts (`HandlerWork.workKey`).
    package var key: String
    package var handler: String
    package var trace: String
    package var summary: String
    package var attempts: Int
    /// When the last attempt started.
    package var lastStartedAt: Date

    package init(key: String, handler: String, trace: String, summary: String, attempts: Int, lastStartedAt: Date) {
        self.key = key
        self.handler = handler
        self.trace = trace
        self.summary = summary
        self.attempts = attempts
        self.lastStartedAt = lastStartedAt
    }
}

/// Work set aside because it was running each of the last `attempts` times the process died: it is not handled
/// again unless an operator asks for a retry.
package struct QuarantineEntry: Hashable, Sendable, Codable {
    /// The entry's number in the bot's store.
    package var id: Int64
    package var key: String
    package var handler: String
    package var trace: String
    /// What the work was, for people: a message's text, shortened.
    package var summary: String
    package var attempts: Int
    /// When the last attempt (the last crash) started.
    package var lastStartedAt: Date
    package var quarantinedAt: Date
    /// The work itself, to hand to the handler again on a retry; nil for `make`, `onStart` and `onReady`, which run
    /// again at the bot's next start.
    package var work: QuarantinedWork?
    /// An operator asked for a retry that has not run yet.
    package var retryRequested: Bool

    package init(
        id: Int64, key: String, handler: String, trace: String, summary: String, attempts: Int, lastStartedAt: Date,
        quarantinedAt: Date, work: QuarantinedWork?, retryRequested: Bool
    ) {
        self.id = id
        self.key = key
        self.handler = handler
        self.trace = trace
        self.summary = summary
        self.attempts = attempts
        self.lastStartedAt = lastStartedAt
        self.quarantinedAt = quarantinedAt
        self.work = work
        self.retryRequested = retryRequested
    }
}

/// The part of quarantined work a retry needs.
package enum QuarantinedWork: Hashable, Sendable, Codable {
    case message(Message)
    case messageUpdated(Message)
    /// A scheduled job's occurrence: the job as stored when it is retried, with this occurrence number.
    case job(ScheduledJob.ID, occurrence: Int)
    case event(BotEvent)
}

/// What a unit of work records about crashes, in the same transaction as its effects.
package enum CrashBookkeeping: Hashable, Sendable {
    /// The suspect ran to the end: it is no longer suspected.
    case clearSuspect(String)
    /// The suspect reached its attempts: set it aside.
    case quarantine(CrashSuspect, work: QuarantinedWork?)
    /// A retried entry ran to the end: it leaves the quarantine.
    case retried(Int64)
    /// A retried entry crashed the process again: it stays, without its retry request.
    case retryCrashed(Int64)
    /// A repeating job with an occurrence quarantined before this one is paused.
    case pauseJobIfQuarantinedBefore(ScheduledJob.ID)
    /// A job paused by the quarantine runs again.
    case resumeJob(ScheduledJob.ID)
}
