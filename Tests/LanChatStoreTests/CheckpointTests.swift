import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

/// The WAL is copied into the main file right after the commit that made it long, not
/// inside that commit (`WALCheckpointer`), and it still starts over, so it stays short.
@Suite("Store: checkpoints after the commit")
struct CheckpointTests {
    let bob = testKey(2)
    static let pageSize = 4_096

    func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : -1
    }

    /// About 1 000 bytes a message: three to a 4 KiB page.
    func bigTexts(pages: Int) -> [String] {
        Array(repeating: String(repeating: "x", count: 1_000), count: 3 * pages)
    }

    @Test func theCommitThatMakesTheLogLongReturnsBeforeTheCopy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        defer { try? store.close() }
        let before = fileSize(directory.storePath)
        let texts = bigTexts(pages: 3 * Int(WALCheckpointer.threshold) / 2)
        // One writer job: the commit, then a look before the job ends. Once it has ended,
        // the queued checkpoint may run at any moment, so nothing is read after it.
        let (afterCommit, checkpointsAfterCommit) = try await store.pool.writeWithoutTransaction {
            db in
            try db.inTransaction {
                for text in texts {
                    try db.execute(
                        sql: """
                            INSERT INTO messages (uuid, pk, direction, stream, seq, text,
                                created_at, status)
                            VALUES (randomblob(16), ?, 1, 9, (SELECT count(*) FROM messages) + 1,
                                ?, 1, 0)
                            """,
                        arguments: [bob.blob, text])
                }
                return .commit
            }
            return (fileSize(directory.storePath), store.checkpointer.checkpoints)
        }
        // SQLite's own checkpoint would have copied the log into the main file inside the
        // commit, before this job went on.
        #expect(afterCommit == before, "nothing was copied inside the commit")
        #expect(checkpointsAfterCommit == (done: 0, failed: 0))
        // The checkpoint was queued behind that job on the writer: this job runs after it.
        try await store.pool.writeWithoutTransaction { _ in }
        #expect(store.checkpointer.checkpoints == (done: 1, failed: 0))
        #expect(fileSize(directory.storePath) > before, "the log was copied right after")
    }

    @Test func aStreamOfSmallCommitsKeepsTheLogShort() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        defer { try? store.close() }
        // Some 8 000 pages in all, one small transaction after another.
        for index in 0..<1_000 {
            _ = try await store.enqueue(
                to: bob, texts: ["message \(index) " + String(repeating: "y", count: 80)], at: 5)
        }
        let checkpoints = store.checkpointer.checkpoints
        #expect(checkpoints.done >= 4 && checkpoints.failed == 0, "\(checkpoints)")
        // The log started over after each checkpoint: it never held much more than the
        // threshold (a checkpoint that never caught up let it grow to tens of megabytes).
        let logPages = fileSize(directory.storePath + "-wal") / Self.pageSize
        #expect(logPages < Int(WALCheckpointer.threshold) + 100, "\(logPages) pages")
        #expect(try await store.counts().queued == 1_000)
    }

    @Test func closeAfterAQueuedCheckpointEmptiesTheLogAndKeepsEverything() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await openStoreWithPeer(directory, peer: bob)
        _ = try await store.enqueue(
            to: bob, texts: bigTexts(pages: 2 * Int(WALCheckpointer.threshold)), at: 2)
        try store.close()
        #expect(fileSize(directory.storePath + "-wal") <= 0, "the WAL is empty or gone")
        let reopened = try MessageStore.open(path: directory.storePath)
        defer { try? reopened.close() }
        #expect(try await reopened.counts().queued == 3 * 2 * Int(WALCheckpointer.threshold))
    }
}
