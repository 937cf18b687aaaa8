import ChatterBots
import Foundation

/// One claimed run of a scheduled job: the job as it was when claimed, and the occurrence number.
///
/// The pair (job id, occurrence) names the run: sends made while running it get clientMessageIds derived
/// from `job:<id>@<occurrence>`, so a run repeated after a crash sends nothing twice.
package struct JobOccurrence: Hashable, Sendable {
    /// The job, with status `running`.
    public var job: ScheduledJobRecord
    /// The occurrence number, from 1.
    public var number: Int

    public init(job: ScheduledJobRecord, number: Int) {
        self.job = job
        self.number = number
    }

    /// When this occurrence was due.
    public var dueAt: Date { job.dueAt }

    /// The trigger of derived clientMessageIds: `job:<id>@<occurrence>`.
    public var trigger: String { ClientMessageID.jobTrigger(job.id, occurrence: number) }

    /// The clientMessageId of the `index`-th send (from 0) of this occurrence (name-based: a job names no message,
    /// so every store derives the same key).
    public func clientMessageID(bot: User.ID, index: Int) -> ClientMessageID {
        ClientMessageID.derived(bot: bot, running: job.id, occurrence: number, index: index)
    }
}
