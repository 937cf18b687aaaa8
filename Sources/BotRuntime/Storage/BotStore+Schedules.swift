import ChatterBots
import Foundation
import SQLite

extension BotStore {
    /// Adds `job` to the schedule and returns it as stored. Idempotent on the id: when a job with this id
    /// exists, it is returned unchanged. Inside a handler, schedule through its ``UnitOfWork`` instead.
    @discardableResult
    public func addJob(_ job: NewScheduledJob) async throws(BotStoreError) -> ScheduledJobRecord {
        let now = clock.now
        return try await write("add a scheduled job") { db in
            try ScheduleWrites.add(job, now: now, db: db)
            guard let stored = try ScheduleWrites.job(job.id, db: db) else {
                throw BotStoreError.corruptRecord(table: "scheduled_jobs", key: job.id.rawValue, reason: "the job neither inserts nor exists")
            }
            return stored
        }
    }

    /// The job `id`, or nil.
    public func job(_ id: ScheduledJob.ID) async throws(BotStoreError) -> ScheduledJobRecord? {
        try await read("read a scheduled job") { db in try ScheduleWrites.job(id, db: db) }
    }

    /// The jobs of `owner` (every job when nil), soonest first; finished ones (done, cancelled) only when
    /// asked. With `unit`, as they will be once it commits.
    public func jobs(
        ownedBy owner: StateScope? = nil, includingFinished: Bool = false, overlaying unit: UnitOfWork? = nil
    ) async throws(BotStoreError) -> [ScheduledJobRecord] {
        let stored = try await read("list scheduled jobs") { db in
            if let owner {
                return try db.fetchAll(sql: ScheduleSQL.selectByOwner, arguments: [owner.storageKind, owner.storageID]).map(ScheduledJobRecord.init(row:))
            }
            return try db.fetchAll(sql: ScheduleSQL.selectAll).map(ScheduledJobRecord.init(row:))
        }
        var jobs = stored
        let now = clock.now
        for change in unit?.jobChanges ?? [] {
            switch change {
            case .add(let new) where !jobs.contains(where: { $0.id == new.id }):
                jobs.append(ScheduledJobRecord(new, createdAt: now))
            case .add:
                break
            case .cancel(let id):
                if let index = jobs.firstIndex(where: { $0.id == id }), !jobs[index].status.isFinished {
                    jobs[index].status = .cancelled
                }
            }
        }
        return jobs
            .filter { (owner == nil || $0.owner == owner) && (includingFinished || !$0.status.isFinished) }
            .sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
    }

    /// The scheduled jobs due at `now`, oldest due first: after downtime, every job that came due meanwhile.
    public func dueJobs(at now: Date, limit: Int = 100) async throws(BotStoreError) -> [ScheduledJobRecord] {
        try await read("list due jobs") { db in
            try db.fetchAll(sql: ScheduleSQL.selectDue, arguments: [now, limit]).map(ScheduledJobRecord.init(row:))
        }
    }

    /// When the earliest scheduled job is due (possibly in the past), or nil when none is: the scheduler sleeps until then.
    public func nextDueDate() async throws(BotStoreError) -> Date? {
        try await read("find the next due job") { db in
            // `min()` over no rows is one row holding NULL.
            try db.fetchOne(Date?.self, sql: ScheduleSQL.selectNextDue) ?? nil
        }
    }

    /// Claims occurrence `occurrence` of job `id` to run it: the job becomes `running`. Nil when that
    /// occurrence is not waiting (cancelled, done, already claimed, or another occurrence is current).
    public func claim(_ id: ScheduledJob.ID, occurrence: Int) async throws(BotStoreError) -> JobOccurrence? {
        try await write("claim a job occurrence") { db in
            try db.fetchOne(sql: ScheduleSQL.claim, arguments: [id.rawValue, occurrence])
                .map { row in try JobOccurrence(running: ScheduledJobRecord(row: row)) }
        }
    }

    /// Claims the occurrences due at `now`, oldest due first, in one transaction.
    public func claimDueJobs(at now: Date, limit: Int = 100) async throws(BotStoreError) -> [JobOccurrence] {
        try await write("claim due jobs") { db in
            try db.fetchAll(sql: ScheduleSQL.claimDue, arguments: [now, limit])
                .map { row in try JobOccurrence(running: ScheduledJobRecord(row: row)) }
                .sorted { ($0.dueAt, $0.job.id) < ($1.dueAt, $1.job.id) }
        }
    }

    /// Gives back a claimed occurrence that did not complete (its handler failed): it is scheduled again
    /// with the same number, at `retryAt` or its original due time. Returns false when it was not claimed.
    @discardableResult
    public func releaseClaim(_ occurrence: JobOccurrence, retryAt: Date? = nil) async throws(BotStoreError) -> Bool {
        try await write("release a job claim") { db in
            try db.execute(sql: ScheduleSQL.release, arguments: [retryAt, occurrence.job.id.rawValue, occurrence.number])
            return db.changes > 0
        }
    }

    /// Completes a claimed occurrence that had no effects to commit: the job is due again at `nextDueAt`
    /// with the next occurrence number, or done when nil. An occurrence with effects completes in its unit.
    @discardableResult
    public func completeOccurrence(_ occurrence: JobOccurrence, nextDueAt: Date?) async throws(BotStoreError) -> ScheduledJobRecord {
        let now = clock.now
        return try await write("complete a job occurrence") { db in
            try ScheduleWrites.complete(occurrence, nextDueAt: nextDueAt, now: now, db: db)
        }
    }

    /// Cancels job `id`: no further occurrence runs. Returns false when it was already finished or unknown.
    @discardableResult
    public func cancelJob(_ id: ScheduledJob.ID) async throws(BotStoreError) -> Bool {
        let now = clock.now
        return try await write("cancel a scheduled job") { db in
            try ScheduleWrites.cancel(id, now: now, db: db)
        }
    }

    /// Deletes jobs that finished (done or cancelled) before `date`; returns how many.
    @discardableResult
    public func pruneFinishedJobs(finishedBefore date: Date) async throws(BotStoreError) -> Int {
        try await write("prune finished jobs") { db in
            try db.execute(sql: ScheduleSQL.pruneFinished, arguments: [date])
            return db.changes
        }
    }
}

extension ScheduledJobRecord {
    init(row: Row) throws {
        let key: String = try row["id"]
        let ownerKind: String = try row["owner_scope"]
        let ownerID: String = try row["owner_id"]
        guard let owner = StateScope(storageKind: ownerKind, storageID: ownerID) else {
            throw BotStoreError.corruptRecord(table: "scheduled_jobs", key: key, reason: "unknown owner scope \"\(ownerKind)\"")
        }
        self.init(
            id: ID(key), name: try row["name"], dueAt: try row["due_at"],
            payload: try row.decodedJSON(JSONValue.self, "payload", table: "scheduled_jobs", key: key),
            repeatRule: try row.optionalDecodedJSON(JSONValue.self, "repeat_rule", table: "scheduled_jobs", key: key),
            timeZone: try row["time_zone"], status: try row.rawEnum(Status.self, "status", table: "scheduled_jobs", key: key),
            occurrence: try row["occurrence"], lastFiredAt: try row["last_fired_at"], createdAt: try row["created_at"],
            owner: owner)
    }

    /// A new job as it is stored before its first run.
    init(_ job: NewScheduledJob, createdAt: Date) {
        self.init(
            id: job.id, name: job.name, dueAt: job.dueAt, payload: job.payload, repeatRule: job.repeatRule,
            timeZone: job.timeZone, status: .scheduled, occurrence: 1, lastFiredAt: nil, createdAt: createdAt, owner: job.owner)
    }
}

extension JobOccurrence {
    init(running job: ScheduledJobRecord) {
        self.init(job: job, number: job.occurrence)
    }
}

/// Schedule writes shared by the store's own operations and unit commits.
enum ScheduleWrites {
    static func job(_ id: ScheduledJob.ID, db: Database) throws -> ScheduledJobRecord? {
        try db.fetchOne(sql: ScheduleSQL.selectByID, arguments: [id.rawValue]).map(ScheduledJobRecord.init(row:))
    }

    static func add(_ job: NewScheduledJob, now: Date, db: Database) throws {
        try db.execute(
            sql: ScheduleSQL.insert,
            arguments: [
                job.id.rawValue, job.name, job.dueAt, try StoreJSON.text(job.payload), try job.repeatRule.map(StoreJSON.text),
                job.timeZone, now, job.owner.storageKind, job.owner.storageID,
            ])
    }

    static func cancel(_ id: ScheduledJob.ID, now: Date, db: Database) throws -> Bool {
        try db.execute(sql: ScheduleSQL.cancel, arguments: [now, id.rawValue])
        return db.changes > 0
    }

    /// Completes a claimed occurrence. A job cancelled while the occurrence ran stays cancelled; the
    /// occurrence still completes (its effects commit), since it had already started.
    static func complete(_ occurrence: JobOccurrence, nextDueAt: Date?, now: Date, db: Database) throws -> ScheduledJobRecord {
        guard let row = try db.fetchOne(
            sql: ScheduleSQL.complete, arguments: [nextDueAt, now, occurrence.job.id.rawValue, occurrence.number])
        else {
            throw BotStoreError.occurrenceNotClaimed(occurrence.job.id, occurrence: occurrence.number)
        }
        return try ScheduledJobRecord(row: row)
    }
}

enum ScheduleSQL {
    static let columns = """
        id, name, due_at, payload, repeat_rule, time_zone, status, occurrence, last_fired_at, created_at, owner_scope, owner_id
        """
    static let insert = """
        INSERT INTO scheduled_jobs (id, name, due_at, payload, repeat_rule, time_zone, status, occurrence, created_at, owner_scope, owner_id)
        VALUES (?, ?, ?, ?, ?, ?, 'scheduled', 1, ?, ?, ?)
        ON CONFLICT (id) DO NOTHING
        """
    static let selectByID = "SELECT \(columns) FROM scheduled_jobs WHERE id = ?"
    static let selectAll = "SELECT \(columns) FROM scheduled_jobs ORDER BY due_at, id"
    static let selectByOwner = "SELECT \(columns) FROM scheduled_jobs WHERE owner_scope = ? AND owner_id = ? ORDER BY due_at, id"
    static let selectDue = """
        SELECT \(columns) FROM scheduled_jobs WHERE status = 'scheduled' AND due_at <= ? ORDER BY due_at, id LIMIT ?
        """
    static let selectNextDue = "SELECT due_at FROM scheduled_jobs WHERE status = 'scheduled' ORDER BY due_at LIMIT 1"
    static let claim = """
        UPDATE scheduled_jobs SET status = 'running' WHERE id = ? AND occurrence = ? AND status = 'scheduled'
        RETURNING \(columns)
        """
    static let claimDue = """
        UPDATE scheduled_jobs SET status = 'running'
        WHERE id IN (SELECT id FROM scheduled_jobs WHERE status = 'scheduled' AND due_at <= ? ORDER BY due_at, id LIMIT ?)
        RETURNING \(columns)
        """
    static let release = """
        UPDATE scheduled_jobs SET status = 'scheduled', due_at = coalesce(?, due_at)
        WHERE id = ? AND occurrence = ? AND status = 'running'
        """
    /// Arguments: next due time (NULL: no further occurrence), now, id, occurrence.
    static let complete = """
        UPDATE scheduled_jobs SET
            status = CASE WHEN status = 'cancelled' THEN 'cancelled' WHEN ?1 IS NULL THEN 'done' ELSE 'scheduled' END,
            finished_at = CASE WHEN status = 'cancelled' THEN finished_at WHEN ?1 IS NULL THEN ?2 ELSE NULL END,
            due_at = coalesce(?1, due_at),
            occurrence = occurrence + 1,
            last_fired_at = ?2
        WHERE id = ?3 AND occurrence = ?4 AND status IN ('running', 'cancelled')
        RETURNING \(columns)
        """
    static let cancel = """
        UPDATE scheduled_jobs SET status = 'cancelled', finished_at = ? WHERE id = ? AND status IN ('scheduled', 'running')
        """
    static let pruneFinished = """
        DELETE FROM scheduled_jobs WHERE status IN ('done', 'cancelled') AND finished_at < ?
        """
}
