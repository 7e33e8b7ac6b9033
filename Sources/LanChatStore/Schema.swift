import GRDB
import LanChatCore

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
        migrator.registerMigration("v3: conversations, event log, search") { db in
            try db.execute(sql: v3)
        }
        migrator.registerMigration("v4: contacts, message requests, key changes") { db in
            try db.execute(sql: v4)
        }
        migrator.registerMigration("v5: search after the write, unread counts") { db in
            try db.execute(sql: v5)
        }
        migrator.registerMigration("v6: groups") { db in
            try db.execute(sql: v6)
        }
        migrator.registerMigration("v7: group conversations, group events, group requests") { db in
            try db.execute(sql: v7)
        }
        migrator.registerMigration("v8: set-based bookkeeping for batches") { db in
            try db.execute(sql: v8)
        }
        migrator.registerMigration("v9: received batches staged") { db in
            try db.execute(sql: v9)
        }
        migrator.registerMigration("v10: settled key changes") { db in
            try db.execute(sql: v10)
        }
        migrator.registerMigration("v11: replaced keys") { db in
            try db.execute(sql: v11)
        }
        migrator.registerMigration("v12: store generation") { db in
            // Counts the daemon's starts and the backups taken, and the store marker records
            // it: a store older than the marker (a restored backup, whatever its message
            // count) is told apart from the one last used (`HistoryCheck`).
            try db.execute(
                sql: "ALTER TABLE store_identity ADD COLUMN generation INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v13: a removed member's last membership") { db in
            // A member invited and removed while it was offline got only the frame that
            // removed it, which does not list it: it refused the group as one it was never
            // invited to, and with it the messages sent while it was a member (QA). The
            // frame that last listed it is kept beside the one that removed it, and sent
            // first (`groupFrames(for:)`).
            try db.execute(sql: "ALTER TABLE group_outbox ADD COLUMN membership BLOB")
        }
        migrator.registerMigration("v14: Chinese, Japanese and Korean search") { db in
            try db.execute(sql: v14)
        }
        migrator.registerMigration("v15: emoji search") { db in
            try db.execute(sql: v15)
        }
        return migrator
    }

    /// The event log, the inbox's conversations and the search index. Triggers keep all
    /// three in the transaction that changes `messages`, so no write path (today's or a
    /// future one) can store a message or move its status without its event, its
    /// conversation and its index entry; and a rolled back write leaves none of them.
    ///
    /// `events.type` codes are `StoredEventType.code`. An event's `at` is the row's own time
    /// where the write path gave one (received, created, delivered, read), else SQLite's clock.
    static let v3 = """
        -- Cursors are never reused: pruning always keeps the newest event, so the next rowid
        -- is always past every cursor ever given (no AUTOINCREMENT, whose sqlite_sequence
        -- row would be one more page written by every commit).
        CREATE TABLE events (
            cursor INTEGER PRIMARY KEY,
            type INTEGER NOT NULL,
            at INTEGER NOT NULL,
            pk BLOB,
            message INTEGER,
            status INTEGER
        );
        CREATE TABLE conversations (
            pk BLOB PRIMARY KEY NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
            last_message INTEGER,
            updated_at INTEGER,
            archived INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        -- No index on activity: the inbox sorts its few thousand rows at most, while every
        -- commit would move an index entry. columnsize=0: no per-message size row (no ranking
        -- is used: search is newest first).
        CREATE VIRTUAL TABLE messages_fts USING fts5(
            text, content='messages', content_rowid='rowid', columnsize=0,
            tokenize='unicode61 remove_diacritics 2');

        -- 1 message.received (in), 2 message.status queued (out).
        CREATE TRIGGER messages_inserted AFTER INSERT ON messages BEGIN
            INSERT INTO events (type, at, pk, message, status) VALUES (
                CASE new.direction WHEN 0 THEN 1 ELSE 2 END,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                new.pk, new.rowid, new.status);
            INSERT INTO conversations (pk, last_message, updated_at, archived) VALUES (
                new.pk, new.rowid,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                0)
            ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                updated_at = excluded.updated_at, archived = 0;
            INSERT INTO messages_fts (rowid, text) VALUES (new.rowid, new.text);
        END;
        -- 2 message.status: delivered, read, failed, queued again (retry).
        CREATE TRIGGER messages_status_changed AFTER UPDATE OF status ON messages
        WHEN new.direction = 1 AND new.status IS NOT old.status BEGIN
            INSERT INTO events (type, at, pk, message, status) VALUES (
                2,
                coalesce(
                    CASE new.status WHEN 2 THEN new.delivered_at WHEN 3 THEN new.read_at END,
                    CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)),
                new.pk, new.rowid, new.status);
        END;
        -- A message's text never changes; a deleted one (peer removed) leaves the index.
        CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, text)
                VALUES ('delete', old.rowid, old.text);
        END;

        INSERT INTO conversations (pk, last_message, updated_at)
            SELECT pk, rowid,
                CASE direction WHEN 0 THEN coalesce(received_at, created_at) ELSE created_at END
            FROM messages WHERE rowid IN (SELECT max(rowid) FROM messages GROUP BY pk);
        INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
        """

    /// Contacts and trust (PRODUCT.md §4, §6). `request_since`: a message request is pending
    /// from this peer (`--accept contacts`); its messages stay out of the inbox and the unread
    /// count, and their arrival logs no `message.received` (only the request's `request.new`)
    /// until `accept`. `key_changed_from`: the earlier key that used this peer's name when this
    /// key appeared (PROTOCOL.md §3.8 row 7). A peer we wrote to first becomes a contact, as
    /// sending does from now on.
    static let v4 = """
        ALTER TABLE peers ADD COLUMN request_since INTEGER;
        ALTER TABLE peers ADD COLUMN key_changed_from BLOB;
        UPDATE peers SET contact = 1
            WHERE pk IN (SELECT DISTINCT pk FROM messages WHERE direction = 1);

        DROP TRIGGER messages_inserted;
        CREATE TRIGGER messages_inserted AFTER INSERT ON messages BEGIN
            INSERT INTO events (type, at, pk, message, status) SELECT
                CASE new.direction WHEN 0 THEN 1 ELSE 2 END,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                new.pk, new.rowid, new.status
            WHERE new.direction = 1 OR NOT EXISTS (
                SELECT 1 FROM peers WHERE pk = new.pk AND request_since IS NOT NULL);
            INSERT INTO conversations (pk, last_message, updated_at, archived) VALUES (
                new.pk, new.rowid,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                0)
            ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                updated_at = excluded.updated_at, archived = 0;
            INSERT INTO messages_fts (rowid, text) VALUES (new.rowid, new.text);
        END;
        """

    /// Takes the two costliest parts of `v4`'s per-message trigger off the hot path:
    ///
    /// - **Search** is built after the write: a message's FTS5 entry no longer shares its
    ///   durable commit (each commit flushed a new index segment: three to four more pages per
    ///   message). `search_progress.indexed_through` is the invariant's boundary: every
    ///   message with `rowid ≤ indexed_through` is in `messages_fts`, none above.
    ///   `MessageStore.indexPendingMessages` moves it forward in large batches (the daemon's
    ///   `SearchIndexer` after a quiet moment, and `search` itself first, so a search always
    ///   sees every stored message). A new rowid is always above it (SQLite gives `max + 1`,
    ///   and the boundary never passes `max(rowid)`: a delete lowers it with the maximum).
    /// - **Unread counts** are kept in `conversations.unread` by the triggers, so the inbox
    ///   reads one column instead of counting each conversation's unread messages.
    /// - **Pending requests** get a partial index: "not a request" filters (inbox, unread,
    ///   read marks) read the few pending requests instead of scanning every peer, and no
    ///   message's commit writes it.
    static let v5 = """
        CREATE TABLE search_progress (indexed_through INTEGER NOT NULL);
        INSERT INTO search_progress (indexed_through) SELECT coalesce(max(rowid), 0) FROM messages;

        CREATE INDEX peers_requests ON peers (pk) WHERE request_since IS NOT NULL;

        ALTER TABLE conversations ADD COLUMN unread INTEGER NOT NULL DEFAULT 0;
        UPDATE conversations SET unread = (
            SELECT count(*) FROM messages u INDEXED BY messages_unread
            WHERE u.pk = conversations.pk AND u.direction = 0 AND u.read_at IS NULL);

        DROP TRIGGER messages_inserted;
        CREATE TRIGGER messages_inserted AFTER INSERT ON messages BEGIN
            INSERT INTO events (type, at, pk, message, status) SELECT
                CASE new.direction WHEN 0 THEN 1 ELSE 2 END,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                new.pk, new.rowid, new.status
            WHERE new.direction = 1 OR NOT EXISTS (
                SELECT 1 FROM peers WHERE pk = new.pk AND request_since IS NOT NULL);
            INSERT INTO conversations (pk, last_message, updated_at, archived, unread) VALUES (
                new.pk, new.rowid,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                0, new.direction = 0 AND new.read_at IS NULL)
            ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                updated_at = excluded.updated_at, archived = 0,
                unread = conversations.unread + excluded.unread;
        END;
        CREATE TRIGGER messages_read AFTER UPDATE OF read_at ON messages
        WHEN new.direction = 0 AND old.read_at IS NULL AND new.read_at IS NOT NULL BEGIN
            UPDATE conversations SET unread = unread - 1 WHERE pk = new.pk;
        END;
        DROP TRIGGER messages_deleted;
        CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, text)
                SELECT 'delete', old.rowid, old.text
                WHERE old.rowid <= (SELECT indexed_through FROM search_progress);
            UPDATE search_progress SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM messages)
                WHERE indexed_through > (SELECT coalesce(max(rowid), 0) FROM messages);
            UPDATE conversations SET unread = unread - 1
                WHERE pk = old.pk AND old.direction = 0 AND old.read_at IS NULL;
        END;
        """

    /// Groups (PROTOCOL.md §9.7, issue 13). `members` and `basis` are the member keys, 32
    /// bytes each, concatenated in key order; `basis` is the member list of the state this one
    /// was built on (the equal-version rule of `GroupConvergence`). `group_outbox` holds, per
    /// peer and group, the latest GROUP frame that peer must have: it is sent first on every
    /// session with that peer (GROUP has no ACK, and versions make a repeat harmless), which
    /// is how a member that was offline learns a change before the messages that follow it;
    /// a removed member keeps the frame that removed it (and, from v13, the one that last
    /// listed it, in `membership`). A group message is one row per
    /// member on that member's stream, with `group_id`; the copies share their `uuid`. Group
    /// rows stay out of the peer's 1:1 conversation (the trigger below).
    static let v6 = """
        CREATE TABLE groups (
            gid BLOB PRIMARY KEY NOT NULL CHECK (length(gid) = 16),
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            members BLOB NOT NULL,
            basis BLOB NOT NULL DEFAULT x'',
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE group_outbox (
            pk BLOB NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
            gid BLOB NOT NULL REFERENCES groups(gid) ON DELETE CASCADE,
            frame BLOB NOT NULL,
            PRIMARY KEY (pk, gid)
        ) WITHOUT ROWID;
        ALTER TABLE messages ADD COLUMN group_id BLOB;
        CREATE INDEX messages_by_group ON messages (group_id, rowid) WHERE group_id IS NOT NULL;

        DROP TRIGGER messages_inserted;
        CREATE TRIGGER messages_inserted AFTER INSERT ON messages BEGIN
            INSERT INTO events (type, at, pk, message, status) SELECT
                CASE new.direction WHEN 0 THEN 1 ELSE 2 END,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                new.pk, new.rowid, new.status
            WHERE new.direction = 1 OR NOT EXISTS (
                SELECT 1 FROM peers WHERE pk = new.pk AND request_since IS NOT NULL);
            INSERT INTO conversations (pk, last_message, updated_at, archived, unread)
                SELECT new.pk, new.rowid,
                    CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                        ELSE new.created_at END,
                    0, new.direction = 0 AND new.read_at IS NULL
                WHERE new.group_id IS NULL
            ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                updated_at = excluded.updated_at, archived = 0,
                unread = conversations.unread + excluded.unread;
        END;
        DROP TRIGGER messages_read;
        CREATE TRIGGER messages_read AFTER UPDATE OF read_at ON messages
        WHEN new.direction = 0 AND old.read_at IS NULL AND new.read_at IS NOT NULL
            AND new.group_id IS NULL BEGIN
            UPDATE conversations SET unread = unread - 1 WHERE pk = new.pk;
        END;
        DROP TRIGGER messages_deleted;
        CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, text)
                SELECT 'delete', old.rowid, old.text
                WHERE old.rowid <= (SELECT indexed_through FROM search_progress);
            UPDATE search_progress SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM messages)
                WHERE indexed_through > (SELECT coalesce(max(rowid), 0) FROM messages);
            UPDATE conversations SET unread = unread - 1
                WHERE pk = old.pk AND old.direction = 0 AND old.read_at IS NULL
                    AND old.group_id IS NULL;
        END;
        """

    /// Group conversations in the inbox (PRODUCT.md §4, issue 13). `group_conversations` is
    /// to a group what `conversations` is to a peer (v6 keeps group rows out of that one):
    /// the last message (an own message's last copy), its time, the unread count and
    /// `archived`, kept by their own triggers, which fire only for group rows, so the 1:1
    /// write path is unchanged. No foreign key on `gid`: a message's insert must never fail
    /// because of its conversation. `events.gid`: the group a `group.changed` event concerns.
    /// `groups.request_since`/`request_from`: under `--accept contacts`, a group a non-contact
    /// added us to is a request (since when, from whom), kept out of the inbox and the unread
    /// count until `accept GROUP`.
    static let v7 = """
        CREATE TABLE group_conversations (
            gid BLOB PRIMARY KEY NOT NULL,
            last_message INTEGER,
            updated_at INTEGER,
            archived INTEGER NOT NULL DEFAULT 0,
            unread INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        ALTER TABLE events ADD COLUMN gid BLOB;
        ALTER TABLE groups ADD COLUMN request_since INTEGER;
        ALTER TABLE groups ADD COLUMN request_from BLOB;

        CREATE TRIGGER group_messages_inserted AFTER INSERT ON messages
        WHEN new.group_id IS NOT NULL BEGIN
            INSERT INTO group_conversations (gid, last_message, updated_at, archived, unread)
            VALUES (
                new.group_id, new.rowid,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                0, new.direction = 0 AND new.read_at IS NULL)
            ON CONFLICT (gid) DO UPDATE SET last_message = excluded.last_message,
                updated_at = excluded.updated_at, archived = 0,
                unread = group_conversations.unread + excluded.unread;
        END;
        CREATE TRIGGER group_messages_read AFTER UPDATE OF read_at ON messages
        WHEN new.direction = 0 AND old.read_at IS NULL AND new.read_at IS NOT NULL
            AND new.group_id IS NOT NULL BEGIN
            UPDATE group_conversations SET unread = unread - 1 WHERE gid = new.group_id;
        END;
        CREATE TRIGGER group_messages_deleted AFTER DELETE ON messages
        WHEN old.group_id IS NOT NULL AND old.direction = 0 AND old.read_at IS NULL BEGIN
            UPDATE group_conversations SET unread = unread - 1 WHERE gid = old.group_id;
        END;

        INSERT INTO group_conversations (gid, last_message, updated_at, unread)
            SELECT m.group_id, m.rowid,
                CASE m.direction WHEN 0 THEN coalesce(m.received_at, m.created_at)
                    ELSE m.created_at END,
                (SELECT count(*) FROM messages u WHERE u.group_id = m.group_id
                    AND u.direction = 0 AND u.read_at IS NULL)
            FROM messages m WHERE m.rowid IN (
                SELECT max(rowid) FROM messages WHERE group_id IS NOT NULL GROUP BY group_id);
        """

    /// A batch's event log and conversation rows written once per statement, not once per
    /// message (issue 15). The per-row triggers stay the rule, for every write path and every
    /// tool that opens the file; they stand aside only while `message_batch` has its row,
    /// which `BatchBookkeeping` inserts, then writes what the triggers would have written with
    /// a few set-based statements, and deletes again, all inside one transaction. So no
    /// commit ever holds the row, and a rolled back batch leaves neither rows nor bookkeeping.
    /// The bodies are `v6`'s and `v3`'s, unchanged.
    static let v8 = """
        CREATE TABLE message_batch (one INTEGER PRIMARY KEY CHECK (one = 1));

        DROP TRIGGER messages_inserted;
        CREATE TRIGGER messages_inserted AFTER INSERT ON messages
        WHEN NOT EXISTS (SELECT 1 FROM message_batch) BEGIN
            INSERT INTO events (type, at, pk, message, status) SELECT
                CASE new.direction WHEN 0 THEN 1 ELSE 2 END,
                CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                    ELSE new.created_at END,
                new.pk, new.rowid, new.status
            WHERE new.direction = 1 OR NOT EXISTS (
                SELECT 1 FROM peers WHERE pk = new.pk AND request_since IS NOT NULL);
            INSERT INTO conversations (pk, last_message, updated_at, archived, unread)
                SELECT new.pk, new.rowid,
                    CASE new.direction WHEN 0 THEN coalesce(new.received_at, new.created_at)
                        ELSE new.created_at END,
                    0, new.direction = 0 AND new.read_at IS NULL
                WHERE new.group_id IS NULL
            ON CONFLICT (pk) DO UPDATE SET last_message = excluded.last_message,
                updated_at = excluded.updated_at, archived = 0,
                unread = conversations.unread + excluded.unread;
        END;
        DROP TRIGGER messages_status_changed;
        CREATE TRIGGER messages_status_changed AFTER UPDATE OF status ON messages
        WHEN new.direction = 1 AND new.status IS NOT old.status
            AND NOT EXISTS (SELECT 1 FROM message_batch) BEGIN
            INSERT INTO events (type, at, pk, message, status) VALUES (
                2,
                coalesce(
                    CASE new.status WHEN 2 THEN new.delivered_at WHEN 3 THEN new.read_at END,
                    CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)),
                new.pk, new.rowid, new.status);
        END;
        """

    /// Received batches, durable before they are messages (issue 15, `MessageStore+Staging`). A
    /// batch the peer may be told is stored (ACK) is one row here, committed with its cursor;
    /// its messages, their indexes, events and conversations are written later, in one
    /// transaction that also deletes the row, so a batch is a staged row or messages, never
    /// both and never neither. `records` is `StagedRecords`' encoding, `count` its messages.
    static let v9 = """
        CREATE TABLE incoming_staged (
            batch INTEGER PRIMARY KEY,
            pk BLOB NOT NULL REFERENCES peers(pk) ON DELETE CASCADE,
            received_at INTEGER NOT NULL,
            count INTEGER NOT NULL,
            records BLOB NOT NULL
        );
        """

    /// A key-change warning the user settled (verify, block, remove, link) names the earlier
    /// key it was about, so the same clash seen again after a restart is not raised again
    /// (`recordKeyChange`); another earlier key with the name still raises one.
    static let v10 = """
        ALTER TABLE peers ADD COLUMN key_change_settled BLOB;
        """

    /// An earlier key whose conversation a new key took over (`linkKey`) names that key: it
    /// is retired, so it raises no key-change warning for the name any more and is not
    /// linked twice.
    static let v11 = """
        ALTER TABLE peers ADD COLUMN replaced_by BLOB;
        """

    /// Chinese, Japanese and Korean search (found by QA: `unicode61` takes a whole run of
    /// such text for one word, so `search 東京` did not find "東京で会いましょう").
    /// `messages_fts_cjk` indexes, with `CJKTokenizer` (each CJK character a token), only the
    /// messages that `holdsCJK` selects; a query with a CJK character is run against it
    /// (`MessageStore.search`), every other one against `messages_fts` as before. The common
    /// path stays as it was: a message without CJK text costs the indexer one cheap test.
    ///
    /// It follows the same boundary as `messages_fts` (`search_progress.indexed_through`,
    /// `v5`): the indexer fills both, the migration indexes what was indexed already, and
    /// the delete trigger takes a message out of it only if it was put in (an external-content
    /// 'delete' of a row that was never inserted corrupts the index). The trigger's other
    /// statements are `v6`'s.
    static let v14 = """
        CREATE VIRTUAL TABLE messages_fts_cjk USING fts5(
            text, content='messages', content_rowid='rowid', columnsize=0,
            tokenize='\(CJKTokenizer.name) unicode61 remove_diacritics 2');
        INSERT INTO messages_fts_cjk (rowid, text)
            SELECT rowid, text FROM messages
            WHERE rowid <= (SELECT indexed_through FROM search_progress)
                AND \(holdsCJK("text", pattern: cjkOnlyPattern))
            ORDER BY rowid;

        \(messagesDeleted(pattern: cjkOnlyPattern))
        """

    /// Emoji search (`EmojiText`; known since QA: `search 🎉` was refused, and an emoji was
    /// in neither index). The CJK index is made again with a tokenizer that lets symbols
    /// through to `CJKTokenizer`, which keeps each emoji a token and drops the other symbols
    /// as `messages_fts` does; it holds the messages with a CJK character or a character of
    /// the emoji blocks (`holdsCJK`), indexed again up to the same boundary, and the delete
    /// trigger takes them out by the same test.
    static let v15 = """
        DROP TABLE messages_fts_cjk;
        CREATE VIRTUAL TABLE messages_fts_cjk USING fts5(
            text, content='messages', content_rowid='rowid', columnsize=0,
            tokenize='\(CJKTokenizer.name) unicode61 remove_diacritics 2 categories ''\(EmojiText.tokenCategories)''');
        INSERT INTO messages_fts_cjk (rowid, text)
            SELECT rowid, text FROM messages
            WHERE rowid <= (SELECT indexed_through FROM search_progress)
                AND \(holdsCJK("text"))
            ORDER BY rowid;

        \(messagesDeleted(pattern: cjkPattern))
        """

    /// The delete trigger from v14 on: a message leaves both search indexes (the CJK one
    /// only if `holdsCJK` with `pattern` put it there); the trigger's other statements are
    /// `v6`'s.
    private static func messagesDeleted(pattern: String) -> String {
        """
        DROP TRIGGER messages_deleted;
        CREATE TRIGGER messages_deleted AFTER DELETE ON messages BEGIN
            INSERT INTO messages_fts (messages_fts, rowid, text)
                SELECT 'delete', old.rowid, old.text
                WHERE old.rowid <= (SELECT indexed_through FROM search_progress);
            INSERT INTO messages_fts_cjk (messages_fts_cjk, rowid, text)
                SELECT 'delete', old.rowid, old.text
                WHERE old.rowid <= (SELECT indexed_through FROM search_progress)
                    AND \(holdsCJK("old.text", pattern: pattern));
            UPDATE search_progress SET indexed_through = (SELECT coalesce(max(rowid), 0) FROM messages)
                WHERE indexed_through > (SELECT coalesce(max(rowid), 0) FROM messages);
            UPDATE conversations SET unread = unread - 1
                WHERE pk = old.pk AND old.direction = 0 AND old.read_at IS NULL
                    AND old.group_id IS NULL;
        END;
        """
    }

    /// The SQL test of whether the text `column` is in `messages_fts_cjk`: it holds a
    /// character of `CJKText.ranges`. The indexer, the migration and the delete trigger all
    /// use this one test, so a message is taken out only where it was put. Three stages, each
    /// run only where the one before passed, cheapest first (100 000 English messages of about
    /// 90 characters, debug build: the first stage takes 13 ms, as long as reading the texts
    /// at all; the exact class alone took 1.4 s, one range 0.13 s):
    ///
    /// 1. anything but ASCII (its characters fewer than its bytes: one pass over the bytes),
    ///    where English text stops;
    /// 2. a character from U+1100 on (a GLOB class of one range), where accented Latin,
    ///    Greek, Cyrillic, Arabic or Hebrew text stops;
    /// 3. a character of the ranges (one GLOB class of them all: SQLite compares code points
    ///    in a class, not bytes, as `CJKSearchTests` checks).
    static func holdsCJK(_ column: String, pattern: String = cjkPattern) -> String {
        "(length(\(column)) < length(CAST(\(column) AS BLOB)) AND \(column) GLOB '\(fromHangulJamo)'"
            + " AND \(column) GLOB '\(pattern)')"
    }

    /// `*[...]*` of every code point from the first of `CJKText.ranges` to the last.
    static let fromHangulJamo: String = {
        var pattern = "*["
        if let first = CJKText.ranges.first.flatMap({ Unicode.Scalar($0.lowerBound) }),
            let last = CJKText.ranges.last.flatMap({ Unicode.Scalar($0.upperBound) })
        {
            pattern.unicodeScalars.append(first)
            pattern.unicodeScalars.append("-")
            pattern.unicodeScalars.append(last)
        }
        return pattern + "]*"
    }()

    /// `*[...]*` of `CJKText.ranges` and `EmojiText.ranges` (schema v15 on).
    static let cjkPattern = globClass(of: CJKText.ranges + EmojiText.ranges)

    /// `*[...]*` of `CJKText.ranges` alone: schema v14's test, as that migration ran it.
    static let cjkOnlyPattern = globClass(of: CJKText.ranges)

    private static func globClass(of ranges: [ClosedRange<UInt32>]) -> String {
        var pattern = "*["
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            guard let low = Unicode.Scalar(range.lowerBound),
                let high = Unicode.Scalar(range.upperBound)
            else { continue }
            pattern.unicodeScalars.append(low)
            pattern.unicodeScalars.append("-")
            pattern.unicodeScalars.append(high)
        }
        return pattern + "]*"
    }
}
