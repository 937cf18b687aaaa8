import Foundation
import SQLite

/// The tables of a bot's store, as ordered named migrations.
///
/// Released migrations are never edited or renamed: a schema change is a new migration appended here.
/// Dates are INTEGER milliseconds since 1970 (the SQLite module's `Date` storage); JSON is TEXT.
enum BotStoreSchema {
    /// Every migration, oldest first.
    static let migrations: [(name: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1-session", createSession),
        ("v1-conversations", createConversations),
        ("v1-outbox", createOutbox),
        ("v1-state", createState),
        ("v1-schedules", createSchedules),
        ("v1-dialogs", createDialogs),
        ("v2-outbox-first-attempt", addOutboxFirstAttempt),
        ("v3-time-ordered-client-message-ids", recordTimeOrderedClientMessageIDsSince),
        ("v4-status-checks-without-lists", rebuildStatusChecksWithoutLists),
        ("v5-message-actions", createMessageActions),
        ("v6-quarantine", createQuarantine),
        ("v7-paused-jobs", allowPausedJobs),
        ("v8-conversation-details", addConversationDetailsDigest),
    ]

    static let migrator: DatabaseMigrator = Self.migrator(through: nil)

    /// A new store as ``migrator`` makes it, built once per process in memory; nil if that failed (out of memory),
    /// and new stores are then migrated in their files. Its migrations are recorded as applied when it was built.
    static let newStoreImage: DatabaseImage? = try? DatabaseImage(pageSize: pageSize, building: { try migrator.migrate($0) })

    /// The page size of a new store. Its rows are small and a message's commit changes about six pages (the outbox,
    /// its indexes, the cursor, the seen ids), each written whole to the log and again at the checkpoint. 2 KiB
    /// pages halve the bytes of SQLite's 4 KiB ones, and of a new store's image; 1 KiB pages would quarter them, but
    /// a flood's batches, whose rows fill pages, then write four times as many log frames. A store made with another
    /// size keeps it.
    static let pageSize = 2048

    /// The migrator of the schema up to and including the migration `last` (all of them when nil): the store an
    /// older version wrote, for upgrade tests.
    static func migrator(through last: String?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, migrate) in migrations {
            migrator.registerMigration(name, migrate: migrate)
            if name == last { break }
        }
        if last == nil { migrator.registerBaseline(through: baselineThrough, create: createBaseline) }
        return migrator
    }

    /// The last migration ``createBaseline(_:)`` stands for; migrations appended later run after it.
    static let baselineThrough = "v4-status-checks-without-lists"

    /// The schema and rows of the migrations through ``baselineThrough``, made at once in a new store: the tables as
    /// those migrations leave them (their `CREATE` text included) and the store's metadata. Replaying the migrations
    /// (a table made, altered, rebuilt) was ~40 % of a thousand bots' start-up CPU, SQLite reading the whole schema
    /// again after each change. `BotStoreBaselineTests` checks it against the migrations.
    @Sendable static func createBaseline(_ db: Database) throws {
        // The tables no later migration changed, made as their own migrations make them; then the two v4 rebuilt.
        try createSession(db)
        try createConversations(db)
        try createState(db)
        try createDialogs(db)
        try db.execute(sql: """
            CREATE TABLE outbox \(outboxDefinition);
            \(outboxIndexes)
            CREATE TABLE scheduled_jobs \(scheduledJobsDefinition);
            \(scheduledJobsIndexes)
            """)
        try db.execute(
            sql: "INSERT INTO store_metadata (key, value) VALUES (?, 0)", arguments: [timeOrderedClientMessageIDsSinceKey])
    }

    @Sendable static func createSession(_ db: Database) throws {
        try db.execute(sql: """
            -- The bot's one device session; at most one row.
            CREATE TABLE session (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                user_id TEXT NOT NULL,
                device_id TEXT NOT NULL,
                access_token TEXT NOT NULL,
                refresh_token TEXT NOT NULL,
                access_token_expires_at INTEGER NOT NULL,
                saved_at INTEGER NOT NULL
            );
            -- Every device the bot has been, and when the service revoked it.
            CREATE TABLE devices (
                device_id TEXT PRIMARY KEY NOT NULL,
                user_id TEXT NOT NULL,
                first_saved_at INTEGER NOT NULL,
                revoked_at INTEGER
            ) WITHOUT ROWID;
            -- Small named values of the store itself (the conversations' updatedSince marker).
            CREATE TABLE store_metadata (
                key TEXT PRIMARY KEY NOT NULL,
                value
            ) WITHOUT ROWID;
            """)
    }

    @Sendable static func createConversations(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE conversations (
                id TEXT PRIMARY KEY NOT NULL,
                contiguous_seq INTEGER NOT NULL CHECK (contiguous_seq >= 0),
                last_seq INTEGER NOT NULL,
                updated_at INTEGER,
                removed_at INTEGER
            ) WITHOUT ROWID;
            -- Messages that arrived ahead of a gap (own = 0, with the message JSON), and seqs of the bot's own
            -- messages ahead of the contiguous seq (own = 1), which the cursor passes over once reached.
            CREATE TABLE parked_messages (
                conversation_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                message_id TEXT NOT NULL,
                own INTEGER NOT NULL,
                message TEXT,
                parked_at INTEGER NOT NULL,
                PRIMARY KEY (conversation_id, seq)
            ) WITHOUT ROWID;
            -- Durable dedupe by message id; rows at or below the contiguous seq are pruned.
            CREATE TABLE seen_messages (
                message_id TEXT PRIMARY KEY NOT NULL,
                conversation_id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                handled_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    @Sendable static func createOutbox(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE outbox (
                id INTEGER PRIMARY KEY,
                client_message_id TEXT NOT NULL UNIQUE,
                conversation_id TEXT NOT NULL,
                payload TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'acked', 'failed')),
                attempts INTEGER NOT NULL DEFAULT 0,
                last_attempt_at INTEGER,
                last_error TEXT,
                message_id TEXT,
                seq INTEGER,
                message_created_at INTEGER,
                acked_at INTEGER,
                origin_kind TEXT NOT NULL,
                origin_id TEXT,
                origin_occurrence INTEGER,
                trace_id TEXT
            );
            -- Pending entries oldest first, for resending and for the depth metric; small by nature.
            CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';
            """)
    }

    /// When each entry first went out: the service's idempotency window counts from there, not from the enqueue.
    /// Versions before it recorded no sends, so an entry they left pending may have gone out when it was enqueued:
    /// its first attempt is taken to be its enqueue time (the earliest it can have been sent).
    @Sendable static func addOutboxFirstAttempt(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE outbox ADD COLUMN first_attempt_at INTEGER;
            UPDATE outbox SET first_attempt_at = created_at WHERE status = 'pending';
            """)
    }

    /// The `store_metadata` key of the earliest message time (INTEGER Unix milliseconds) whose sends get
    /// time-ordered clientMessageIds; see ``ClientMessageIDDerivation``.
    static let timeOrderedClientMessageIDsSinceKey = "time_ordered_client_message_ids_since"

    /// How long after the migration a store written by an older version keeps name-based keys: message times are
    /// the service's clock, which may run ahead of the bot's (by up to this margin without harm).
    static let timeOrderedCutoverMargin: Int64 = 24 * 60 * 60 * 1000

    /// When sends start getting time-ordered clientMessageIds. A fresh store (all migrations run together, nothing
    /// handled yet) derives them for every message. A store an older version used keeps name-based keys for the
    /// messages it may have answered already (those before now plus a margin), so re-handling one after the upgrade
    /// derives the keys that went out, and the service creates no second reply.
    @Sendable static func recordTimeOrderedClientMessageIDsSince(_ db: Database) throws {
        let used = try db.fetchOne(Bool.self, sql: """
            SELECT EXISTS (SELECT 1 FROM session) OR EXISTS (SELECT 1 FROM seen_messages) OR EXISTS (SELECT 1 FROM outbox)
                OR EXISTS (SELECT 1 FROM conversations) OR EXISTS (SELECT 1 FROM devices)
            """) ?? true
        let since = used ? Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) + timeOrderedCutoverMargin : 0
        try db.execute(
            sql: "INSERT OR REPLACE INTO store_metadata (key, value) VALUES (?, ?)",
            arguments: [timeOrderedClientMessageIDsSinceKey, since])
    }

    /// Rebuilds `outbox` and `scheduled_jobs` with their status checks written as comparisons. SQLite evaluates
    /// `status IN ('a', 'b', 'c')` (three values or more) by building a temporary b-tree of the list at every
    /// INSERT and UPDATE of the row: on the outbox that was ~6 % of a flooded bot's CPU, two on every message.
    /// A check cannot be altered in place, so a table with rows is copied (ids, order and contents unchanged); an
    /// empty one (every new store's) is simply made again.
    @Sendable static func rebuildStatusChecksWithoutLists(_ db: Database) throws {
        try rebuild(
            "outbox", definition: outboxDefinition,
            columns: """
                id, client_message_id, conversation_id, payload, created_at, status, attempts, last_attempt_at, last_error,
                message_id, seq, message_created_at, acked_at, origin_kind, origin_id, origin_occurrence, trace_id, first_attempt_at
                """,
            indexes: outboxIndexes, in: db)
        try rebuild(
            "scheduled_jobs", definition: scheduledJobsDefinition,
            columns: scheduledJobsColumns,
            indexes: scheduledJobsIndexes, in: db)
    }

    /// Edits, deletions and reactions handlers asked for, until the service carried them out (then deleted).
    @Sendable static func createMessageActions(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE message_actions (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                conversation_id TEXT NOT NULL,
                message_id TEXT NOT NULL,
                argument TEXT,
                trace_id TEXT,
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                created_at INTEGER NOT NULL
            );
            """)
    }

    /// Handler work that was running when the process died (suspects, with their attempts), and the work set aside
    /// after too many (`docs/quarantine.md`).
    @Sendable static func createQuarantine(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE crash_suspects (
                work_key TEXT PRIMARY KEY,
                handler TEXT NOT NULL,
                trace_id TEXT NOT NULL,
                summary TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                last_started_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE quarantine (
                id INTEGER PRIMARY KEY,
                work_key TEXT NOT NULL,
                handler TEXT NOT NULL,
                trace_id TEXT NOT NULL,
                summary TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                last_started_at INTEGER NOT NULL,
                quarantined_at INTEGER NOT NULL,
                work TEXT,
                retry_requested INTEGER NOT NULL DEFAULT 0
            );
            """)
    }

    /// Jobs whose occurrences keep being quarantined are paused: the status check takes `paused`.
    @Sendable static func allowPausedJobs(_ db: Database) throws {
        try rebuild(
            "scheduled_jobs", definition: scheduledJobsDefinition,
            columns: scheduledJobsColumns,
            indexes: scheduledJobsIndexes, in: db)
    }

    /// What a conversation's title, avatar and members were when last recorded (`Conversation.detailsDigest`).
    @Sendable static func addConversationDetailsDigest(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE conversations ADD COLUMN details_digest TEXT")
    }

    /// The outbox's columns as v4 rebuilt it (and the baseline makes it).
    static let outboxDefinition = """
        (
            id INTEGER PRIMARY KEY,
            client_message_id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status = 'pending' OR status = 'acked' OR status = 'failed'),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_attempt_at INTEGER,
            last_error TEXT,
            message_id TEXT,
            seq INTEGER,
            message_created_at INTEGER,
            acked_at INTEGER,
            origin_kind TEXT NOT NULL,
            origin_id TEXT,
            origin_occurrence INTEGER,
            trace_id TEXT,
            first_attempt_at INTEGER
        )
        """
    static let outboxIndexes = "CREATE INDEX outbox_pending ON outbox (id) WHERE status = 'pending';"
    /// The scheduled jobs' columns as v4 rebuilt them (and the baseline makes them).
    static let scheduledJobsDefinition = """
        (
            id TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            due_at INTEGER NOT NULL,
            payload TEXT NOT NULL,
            repeat_rule TEXT,
            time_zone TEXT,
            status TEXT NOT NULL CHECK (
                status = 'scheduled' OR status = 'running' OR status = 'done' OR status = 'cancelled' OR status = 'paused'),
            occurrence INTEGER NOT NULL CHECK (occurrence >= 1),
            last_fired_at INTEGER,
            created_at INTEGER NOT NULL,
            finished_at INTEGER,
            owner_scope TEXT NOT NULL,
            owner_id TEXT NOT NULL
        ) WITHOUT ROWID
        """
    /// The columns of `scheduled_jobs`, in the order of ``scheduledJobsDefinition``, for its rebuilds.
    static let scheduledJobsColumns = """
        id, name, due_at, payload, repeat_rule, time_zone, status, occurrence, last_fired_at, created_at, finished_at,
        owner_scope, owner_id
        """
    static let scheduledJobsIndexes = """
        CREATE INDEX scheduled_jobs_due ON scheduled_jobs (due_at, id) WHERE status = 'scheduled';
        CREATE INDEX scheduled_jobs_owner ON scheduled_jobs (owner_scope, owner_id);
        """

    /// Makes `table` again as `definition` with `indexes`, keeping its rows (`columns`, in the order of both).
    private static func rebuild(_ table: String, definition: String, columns: String, indexes: String, in db: Database) throws {
        if try db.fetchOne(Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM \(table))") == true {
            try db.execute(sql: """
                CREATE TABLE \(table)_rebuilt \(definition);
                INSERT INTO \(table)_rebuilt SELECT \(columns) FROM \(table);
                DROP TABLE \(table);
                ALTER TABLE \(table)_rebuilt RENAME TO \(table);
                \(indexes)
                """)
        } else {
            try db.execute(sql: "DROP TABLE \(table); CREATE TABLE \(table) \(definition); \(indexes)")
        }
    }

    @Sendable static func createState(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE state (
                scope TEXT NOT NULL,
                scope_id TEXT NOT NULL,
                key TEXT NOT NULL,
                value TEXT NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (scope, scope_id, key)
            ) WITHOUT ROWID;
            """)
    }

    @Sendable static func createSchedules(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE scheduled_jobs (
                id TEXT PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                due_at INTEGER NOT NULL,
                payload TEXT NOT NULL,
                repeat_rule TEXT,
                time_zone TEXT,
                status TEXT NOT NULL CHECK (status IN ('scheduled', 'running', 'done', 'cancelled')),
                occurrence INTEGER NOT NULL CHECK (occurrence >= 1),
                last_fired_at INTEGER,
                created_at INTEGER NOT NULL,
                finished_at INTEGER,
                owner_scope TEXT NOT NULL,
                owner_id TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX scheduled_jobs_due ON scheduled_jobs (due_at, id) WHERE status = 'scheduled';
            CREATE INDEX scheduled_jobs_owner ON scheduled_jobs (owner_scope, owner_id);
            """)
    }

    @Sendable static func createDialogs(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE dialogs (
                user_id TEXT NOT NULL,
                conversation_id TEXT NOT NULL,
                name TEXT NOT NULL,
                step TEXT NOT NULL,
                data TEXT NOT NULL,
                expires_at INTEGER,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, conversation_id)
            ) WITHOUT ROWID;
            """)
    }
}
