import GRDB

/// The store's schema, as versioned migrations. Each migration is append-only: a released
/// migration is never edited, and `Tests/LanChatStoreTests/MigrationTests.swift` upgrades a
/// database of every previous version.
///
/// Conventions: keys are 32-byte BLOBs; u64 stream ids are stored as their Int64 bit
/// pattern; times are milliseconds since the Unix epoch.
enum Schema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: peers, streams, cursors, messages") { db in
            try db.execute(
                sql: """
                    CREATE TABLE peers (
                        pk BLOB PRIMARY KEY NOT NULL CHECK (length(pk) = 32),
                        id TEXT NOT NULL UNIQUE,
                        key_tag TEXT NOT NULL,
                        name TEXT NOT NULL DEFAULT '',
                        alias TEXT,
                        trust TEXT NOT NULL DEFAULT 'unverified'
                            CHECK (trust IN ('unverified', 'verified', 'blocked')),
                        verified_fp BLOB,
                        contact INTEGER NOT NULL DEFAULT 0,
                        status TEXT NOT NULL DEFAULT 'available',
                        status_text TEXT NOT NULL DEFAULT '',
                        first_seen INTEGER NOT NULL,
                        last_seen INTEGER,
                        last_wire_ver INTEGER
                    );
                    -- Where a peer was reached or announced; dialled when it has queued mail.
                    CREATE TABLE peer_addresses (
                        pk BLOB NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
                        endpoint TEXT NOT NULL,
                        last_seen INTEGER NOT NULL,
                        PRIMARY KEY (pk, endpoint)
                    ) WITHOUT ROWID;
                    -- Our outgoing stream to each peer (PROTOCOL.md §9.2).
                    CREATE TABLE out_streams (
                        pk BLOB PRIMARY KEY NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
                        stream INTEGER NOT NULL CHECK (stream != 0),
                        next_seq INTEGER NOT NULL CHECK (next_seq >= 1)
                    ) WITHOUT ROWID;
                    -- The incoming cursor for each peer's stream.
                    CREATE TABLE in_cursors (
                        pk BLOB PRIMARY KEY NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
                        stream INTEGER NOT NULL,
                        delivered INTEGER NOT NULL,
                        read INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    -- direction 0 = in, 1 = out. status (out only): 0 queued, 2 delivered,
                    -- 3 read, 4 failed; 'sent' is never stored, it is derived from the live
                    -- session (it must fall back to queued when the session closes).
                    CREATE TABLE messages (
                        rowid INTEGER PRIMARY KEY,
                        uuid BLOB NOT NULL CHECK (length(uuid) = 16),
                        pk BLOB NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
                        direction INTEGER NOT NULL CHECK (direction IN (0, 1)),
                        stream INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        text TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        received_at INTEGER,
                        read_at INTEGER,
                        status INTEGER,
                        fail_reason TEXT,
                        delivered_at INTEGER
                    );
                    CREATE UNIQUE INDEX messages_by_uuid ON messages (pk, direction, uuid);
                    CREATE UNIQUE INDEX messages_out_by_seq ON messages (pk, stream, seq)
                        WHERE direction = 1;
                    CREATE INDEX messages_by_conversation ON messages (pk, rowid);
                    CREATE INDEX messages_queued ON messages (pk, stream, seq)
                        WHERE direction = 1 AND status = 0;
                    CREATE INDEX messages_unread ON messages (pk)
                        WHERE direction = 0 AND read_at IS NULL;
                    """)
        }
        migrator.registerMigration("v2: store identity") { db in
            // One row: a random id given to the store when it is created. The data
            // directory's store marker names it, so a store that was replaced by an empty one
            // (a -wal lost after a crash, a deleted file) is told apart from this one.
            try db.execute(
                sql: """
                    CREATE TABLE store_identity (id TEXT NOT NULL);
                    INSERT INTO store_identity (id) VALUES (lower(hex(randomblob(16))));
                    """)
        }
        return migrator
    }
}
