import ChatterBots
import Foundation
import SQLite

extension BotStore {
    /// Adds an attempt to each piece of work that was running when the process died (see `InFlightTable`).
    package func recordCrashedWork(_ records: [InFlightTable.Record]) async throws(BotStoreError) {
        guard !records.isEmpty else { return }
        try await write("record the work running when the process died") { db in
            for record in records {
                try db.execute(
                    sql: QuarantineSQL.addAttempt,
                    arguments: [record.key, record.handler, record.trace, record.summary, record.startedAt])
            }
        }
    }

    /// The work suspected of crashing the process, with its attempts.
    package func crashSuspects() async throws(BotStoreError) -> [CrashSuspect] {
        try await read("read the crash suspects") { db in
            try db.fetchAll(sql: QuarantineSQL.selectSuspects).map { row in try CrashSuspect(row: row) }
        }
    }

    /// The suspects and the quarantine, read in one transaction (what a session needs at its start).
    package func crashRecord() async throws(BotStoreError) -> (suspects: [CrashSuspect], quarantine: [QuarantineEntry]) {
        try await read("read the crash suspects and the quarantine") { db in
            let suspects = try db.fetchAll(sql: QuarantineSQL.selectSuspects).map { row in try CrashSuspect(row: row) }
            let entries = try db.fetchAll(sql: QuarantineSQL.selectEntries).map { row in try QuarantineEntry(row: row) }
            return (suspects, entries)
        }
    }

    /// Forgets the suspects in `keys` (they did not come back), in a transaction of their own.
    package func clearCrashSuspects(_ keys: [String]) async throws(BotStoreError) {
        guard !keys.isEmpty else { return }
        try await write("clear crash suspects") { db in
            for key in keys { try db.execute(sql: QuarantineSQL.deleteSuspect, arguments: [key]) }
        }
    }

    /// Applies `bookkeeping` in a transaction of its own (work with no unit of its own: `onStart`, a suspect that
    /// turned out to be handled already).
    package func record(_ bookkeeping: [CrashBookkeeping]) async throws(BotStoreError) {
        guard !bookkeeping.isEmpty else { return }
        let now = clock.now
        try await write("record crash bookkeeping") { db in
            try QuarantineWrites.apply(bookkeeping, now: now, db: db)
        }
    }

    /// The quarantined work, oldest first.
    package func quarantined() async throws(BotStoreError) -> [QuarantineEntry] {
        try await read("read the quarantine") { db in
            try db.fetchAll(sql: QuarantineSQL.selectEntries).map { row in try QuarantineEntry(row: row) }
        }
    }

    /// How many entries were quarantined at or after `date`, leaving out those waiting for a retry.
    package func quarantinedCount(since date: Date) async throws(BotStoreError) -> Int {
        try await read("count the quarantine") { db in
            try db.fetchOne(sql: QuarantineSQL.countSince, arguments: [date]).map { try $0[0] as Int } ?? 0
        }
    }

    /// Forgets the entry `id`; returns whether there was one.
    @discardableResult
    package func dropQuarantined(_ id: Int64) async throws(BotStoreError) -> Bool {
        try await write("drop a quarantined entry") { db in
            try db.execute(sql: QuarantineSQL.delete, arguments: [id])
            return db.changes > 0
        }
    }

    /// Marks the entry `id` to be handed to its handler again; returns the entry, nil when there is none.
    package func requestRetry(of id: Int64) async throws(BotStoreError) -> QuarantineEntry? {
        try await requestRetryNoting(of: id)?.entry
    }

    /// Marks the entry `id` to be handed to its handler again; returns the entry and whether a retry was already
    /// asked for (and is pending: queued, running, or waiting for the bot's next start), nil when there is none.
    package func requestRetryNoting(of id: Int64) async throws(BotStoreError) -> (entry: QuarantineEntry, wasPending: Bool)? {
        try await write("request a retry of a quarantined entry") { db in
            guard let before = try db.fetchOne(sql: QuarantineSQL.selectEntry, arguments: [id]).map({ try QuarantineEntry(row: $0) })
            else { return nil }
            try db.execute(sql: QuarantineSQL.requestRetry, arguments: [id])
            var entry = before
            entry.retryRequested = true
            return (entry, before.retryRequested)
        }
    }
}

extension CrashSuspect {
    init(row: Row) throws {
        self.init(
            key: try row["work_key"], handler: try row["handler"], trace: try row["trace_id"], summary: try row["summary"],
            attempts: try row["attempts"], lastStartedAt: try row["last_started_at"])
    }
}

extension QuarantineEntry {
    init(row: Row) throws {
        let id: Int64 = try row["id"]
        self.init(
            id: id, key: try row["work_key"], handler: try row["handler"], trace: try row["trace_id"],
            summary: try row["summary"], attempts: try row["attempts"], lastStartedAt: try row["last_started_at"],
            quarantinedAt: try row["quarantined_at"],
            work: try row.optionalDecodedJSON(QuarantinedWork.self, "work", table: "quarantine", key: String(id)),
            retryRequested: (try row["retry_requested"] as Int) != 0)
    }
}

enum QuarantineWrites {
    static func apply(_ bookkeeping: [CrashBookkeeping], now: Date, db: Database) throws {
        for item in bookkeeping {
            switch item {
            case .clearSuspect(let key):
                try db.execute(sql: QuarantineSQL.deleteSuspect, arguments: [key])
            case .quarantine(let suspect, let work):
                try db.execute(sql: QuarantineSQL.deleteSuspect, arguments: [suspect.key])
                try db.execute(
                    sql: QuarantineSQL.insert,
                    arguments: [
                        suspect.key, suspect.handler, suspect.trace, suspect.summary, suspect.attempts,
                        suspect.lastStartedAt, now, try work.map { try StoreJSON.text($0) },
                    ])
            case .retried(let id):
                try db.execute(sql: QuarantineSQL.delete, arguments: [id])
            case .retryCrashed(let id):
                try db.execute(sql: QuarantineSQL.deleteSuspect, arguments: [HandlerWork.retryKey(of: id)])
                try db.execute(sql: QuarantineSQL.retryCrashed, arguments: [id])
            case .pauseJobIfQuarantinedBefore(let job):
                try db.execute(sql: QuarantineSQL.pauseJob, arguments: [job.rawValue, "job:\(job.rawValue)#%"])
            case .resumeJob(let job):
                try db.execute(sql: QuarantineSQL.resumeJob, arguments: [job.rawValue])
            }
        }
    }
}

enum QuarantineSQL {
    static let addAttempt = """
        INSERT INTO crash_suspects (work_key, handler, trace_id, summary, attempts, last_started_at)
        VALUES (?, ?, ?, ?, 1, ?)
        ON CONFLICT (work_key) DO UPDATE SET
            attempts = attempts + 1, handler = excluded.handler, trace_id = excluded.trace_id,
            summary = excluded.summary, last_started_at = excluded.last_started_at
        """
    static let selectSuspects = "SELECT work_key, handler, trace_id, summary, attempts, last_started_at FROM crash_suspects"
    static let deleteSuspect = "DELETE FROM crash_suspects WHERE work_key = ?"
    static let columns = """
        id, work_key, handler, trace_id, summary, attempts, last_started_at, quarantined_at, work, retry_requested
        """
    static let selectEntries = "SELECT \(columns) FROM quarantine ORDER BY id"
    static let selectEntry = "SELECT \(columns) FROM quarantine WHERE id = ?"
    static let insert = """
        INSERT INTO quarantine (work_key, handler, trace_id, summary, attempts, last_started_at, quarantined_at, work)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// Entries waiting for a retry do not count: the operator has dealt with them.
    static let countSince = "SELECT count(*) FROM quarantine WHERE quarantined_at >= ? AND retry_requested = 0"
    static let delete = "DELETE FROM quarantine WHERE id = ?"
    static let retryCrashed = "UPDATE quarantine SET retry_requested = 0, attempts = attempts + 1 WHERE id = ?"
    /// Pauses a job that has two occurrences or more in the quarantine (this one included).
    static let pauseJob = """
        UPDATE scheduled_jobs SET status = 'paused'
        WHERE id = ?1 AND status = 'scheduled' AND (SELECT count(*) FROM quarantine WHERE work_key LIKE ?2) >= 2
        """
    static let resumeJob = "UPDATE scheduled_jobs SET status = 'scheduled' WHERE id = ? AND status = 'paused'"
    static let requestRetry = "UPDATE quarantine SET retry_requested = 1 WHERE id = ?"
}
