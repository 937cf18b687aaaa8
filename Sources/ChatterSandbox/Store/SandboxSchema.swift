import SQLite

/// The sandbox's SQLite schema, as migrations. Times are INTEGER milliseconds since 1970 (UTC), identifiers
/// ULID text, booleans 0/1. Never edit a released migration: add one.
enum SandboxSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-chatter-sandbox") { db in
            try db.execute(sql: version1)
        }
        migrator.registerMigration("v2-messages-by-media") { db in
            // Who may download a file: the members of the conversations whose messages carry it.
            try db.execute(sql: "CREATE INDEX messages_by_media ON messages(media_id) WHERE media_id IS NOT NULL")
        }
        return migrator
    }

    private static let version1 = """
        CREATE TABLE users (
            id TEXT PRIMARY KEY NOT NULL,
            username TEXT NOT NULL UNIQUE COLLATE NOCASE,
            display_name TEXT NOT NULL,
            avatar_url TEXT,
            password_salt BLOB NOT NULL,
            password_hash BLOB NOT NULL,
            password_iterations INTEGER NOT NULL,
            last_seen_privacy TEXT NOT NULL DEFAULT 'everyone',
            last_seen_at INTEGER,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE devices (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id),
            name TEXT NOT NULL,
            platform TEXT NOT NULL,
            push_token TEXT,
            push_environment TEXT,
            revoked_at INTEGER,
            created_at INTEGER NOT NULL,
            signed_in_at INTEGER NOT NULL
        );
        CREATE INDEX devices_by_user ON devices(user_id);
        CREATE INDEX devices_by_push_token ON devices(push_token);
        CREATE TABLE access_tokens (
            token_hash BLOB PRIMARY KEY NOT NULL,
            device_id TEXT NOT NULL REFERENCES devices(id),
            expires_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX access_tokens_by_device ON access_tokens(device_id);
        CREATE TABLE refresh_tokens (
            token_hash BLOB PRIMARY KEY NOT NULL,
            device_id TEXT NOT NULL REFERENCES devices(id),
            expires_at INTEGER NOT NULL,
            used_at INTEGER,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX refresh_tokens_by_device ON refresh_tokens(device_id);
        CREATE TABLE friendships (
            user_low TEXT NOT NULL REFERENCES users(id),
            user_high TEXT NOT NULL REFERENCES users(id),
            since INTEGER NOT NULL,
            PRIMARY KEY (user_low, user_high),
            CHECK (user_low < user_high)
        ) WITHOUT ROWID;
        CREATE INDEX friendships_by_high ON friendships(user_high);
        CREATE TABLE friend_requests (
            id TEXT PRIMARY KEY NOT NULL,
            from_user TEXT NOT NULL REFERENCES users(id),
            to_user TEXT NOT NULL REFERENCES users(id),
            created_at INTEGER NOT NULL,
            UNIQUE (from_user, to_user)
        );
        CREATE INDEX friend_requests_by_recipient ON friend_requests(to_user);
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('direct', 'group')),
            title TEXT,
            avatar_url TEXT,
            direct_pair TEXT UNIQUE,
            last_seq INTEGER NOT NULL DEFAULT 0,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX conversations_by_update ON conversations(updated_at);
        CREATE TABLE members (
            conversation_id TEXT NOT NULL REFERENCES conversations(id),
            user_id TEXT NOT NULL REFERENCES users(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
            last_delivered_seq INTEGER NOT NULL DEFAULT 0,
            last_read_seq INTEGER NOT NULL DEFAULT 0,
            muted INTEGER NOT NULL DEFAULT 0,
            joined_at INTEGER NOT NULL,
            UNIQUE (conversation_id, user_id)
        );
        CREATE INDEX members_by_user ON members(user_id);
        CREATE TABLE media (
            id TEXT PRIMARY KEY NOT NULL,
            owner_id TEXT NOT NULL REFERENCES users(id),
            content_type TEXT NOT NULL,
            byte_count INTEGER NOT NULL,
            bytes BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE messages (
            id TEXT PRIMARY KEY NOT NULL,
            conversation_id TEXT NOT NULL REFERENCES conversations(id),
            seq INTEGER NOT NULL,
            sender_id TEXT NOT NULL REFERENCES users(id),
            client_message_id TEXT,
            kind TEXT NOT NULL,
            body TEXT,
            media_id TEXT REFERENCES media(id),
            reply_to_id TEXT,
            created_at INTEGER NOT NULL,
            edited_at INTEGER,
            deleted_at INTEGER,
            UNIQUE (conversation_id, seq)
        );
        CREATE TABLE reactions (
            message_id TEXT NOT NULL REFERENCES messages(id),
            emoji TEXT NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id),
            created_at INTEGER NOT NULL,
            UNIQUE (message_id, emoji, user_id)
        );
        CREATE TABLE idempotency_keys (
            sender_id TEXT NOT NULL REFERENCES users(id),
            client_message_id TEXT NOT NULL,
            message_id TEXT NOT NULL REFERENCES messages(id),
            created_at INTEGER NOT NULL,
            PRIMARY KEY (sender_id, client_message_id)
        ) WITHOUT ROWID;
        CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);
        CREATE TABLE apns_configuration (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            team_id TEXT NOT NULL,
            key_id TEXT NOT NULL,
            bundle_id TEXT NOT NULL,
            private_key TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE recorded_pushes (
            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
            device_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            token TEXT NOT NULL,
            environment TEXT NOT NULL,
            payload TEXT NOT NULL,
            status TEXT NOT NULL,
            reason TEXT,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX recorded_pushes_by_user ON recorded_pushes(user_id);
        """
}
