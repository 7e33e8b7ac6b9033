import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

@Suite("Store schema versions and damaged files")
struct MigrationTests {
    @Test func anEmptyFileIsMigratedToTheCurrentSchemaAndReopensUnchanged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try MessageStore.open(path: directory.storePath)
        let first = try appliedMigrations(directory.storePath)
        #expect(first == ["v1: peers, streams, cursors, messages", "v2: store identity"])
        _ = try MessageStore.open(path: directory.storePath)
        #expect(try appliedMigrations(directory.storePath) == first)
    }

    @Test func aStoreFromANewerVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try MessageStore.open(path: directory.storePath)
        let queue = try DatabaseQueue(path: directory.storePath)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: future')")
        }
        #expect { try MessageStore.open(path: directory.storePath) } throws: { error in
            (error as? StoreError)?.kind == .tooNew
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: directory.storePath))
        #expect { try MessageStore.open(path: directory.storePath) } throws: { error in
            (error as? StoreError)?.kind == .corrupt
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.storePath)) == garbage)
    }

    @Test func aDamagedPageFailsTheIntegrityCheck() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await openStoreWithPeer(directory, peer: testKey(2))
            _ = try await store.enqueue(
                to: testKey(2),
                texts: (0..<300).map { "message \($0) " + String(repeating: "z", count: 200) },
                at: 1)
            try await store.executeForTesting("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // Overwrite the middle of the file (an index or table page) with garbage.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: directory.storePath))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        #expect { try MessageStore.open(path: directory.storePath) } throws: { error in
            (error as? StoreError)?.kind == .corrupt
        }
    }

    func appliedMigrations(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        }
    }
}
