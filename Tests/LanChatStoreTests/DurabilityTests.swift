import Foundation
import GRDB
import LanChatCore
import Testing

@testable import LanChatStore

/// What survives a stop, a crash and a lost `-wal` (issue 9 item 8): a clean close leaves
/// everything in the main file, and a store that lost its history is refused at open
/// (`HistoryCheck`) instead of being run on as a new one.
@Suite("Store durability: clean close, lost history, backup")
struct DurabilityTests {
    let bob = testKey(2)

    /// A store with a marker, one peer and `count` queued messages, left open.
    func filledStore(_ directory: TemporaryDirectory, count: Int) async throws -> MessageStore {
        let store = try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        try await store.recordPeerSeen(
            bob, keyTag: "BOBB-TAG2", name: "bob", status: nil, statusText: nil, endpoint: nil,
            at: 1_000)
        _ = try await store.enqueue(to: bob, texts: (0..<count).map { "message \($0)" }, at: 2_000)
        return store
    }

    /// Copies `names` of `source` into `target` (a crash image when `source` is still open).
    func copy(_ names: [String], from source: TemporaryDirectory, to target: TemporaryDirectory)
        throws
    {
        for name in names {
            try FileManager.default.copyItem(
                atPath: source.path + "/" + name, toPath: target.path + "/" + name)
        }
    }

    func messageCount(inFile path: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") ?? -1
        }
    }

    func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    @Test func aCleanCloseLeavesEverythingInTheMainFile() async throws {
        let directory = try TemporaryDirectory()
        let alone = try TemporaryDirectory()
        defer {
            directory.remove()
            alone.remove()
        }
        let store = try await filledStore(directory, count: 5)
        try store.close()
        #expect((fileSize(directory.storePath + "-wal") ?? 0) == 0, "the WAL is empty or gone")
        try copy(["lanchat.sqlite3"], from: directory, to: alone)
        #expect(try messageCount(inFile: alone.storePath) == 5)
    }

    @Test(arguments: ["removed", "damaged"])
    func aStoreWhoseWALWasLostAfterACrashIsRefused(_ loss: String) async throws {
        let directory = try TemporaryDirectory()
        let crashed = try TemporaryDirectory()
        defer {
            directory.remove()
            crashed.remove()
        }
        let store = try await filledStore(directory, count: 3)
        defer { try? store.close() }
        // The files as a kill -9 leaves them: no checkpoint, the rows only in the -wal.
        try copy([StoreMarker.fileName, "lanchat.sqlite3"], from: directory, to: crashed)
        if loss == "damaged" {
            try copy(["lanchat.sqlite3-wal"], from: directory, to: crashed)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: crashed.walPath))
            handle.write(Data(repeating: 0xA5, count: 32))  // the WAL header
            try handle.close()
        }
        #expect {
            try MessageStore.open(path: crashed.storePath, marker: crashed.markerPath)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            let text = error.description
            return error.kind == .corrupt && text.contains("lost its history")
                && text.contains(crashed.storePath) && text.contains(crashed.markerPath)
                && text.contains("lanchat backup")
        }
        // Without the marker the same files open as an empty store: what happened before.
        let unguarded = try MessageStore.open(path: crashed.storePath)
        #expect(try await unguarded.counts().queued == 0)
    }

    @Test func aCrashWithTheWALIntactOpensWithEverything() async throws {
        let directory = try TemporaryDirectory()
        let crashed = try TemporaryDirectory()
        defer {
            directory.remove()
            crashed.remove()
        }
        let store = try await filledStore(directory, count: 3)
        defer { try? store.close() }
        try copy(
            [StoreMarker.fileName, "lanchat.sqlite3", "lanchat.sqlite3-wal"], from: directory,
            to: crashed)
        let reopened = try MessageStore.open(path: crashed.storePath, marker: crashed.markerPath)
        #expect(try await reopened.counts().queued == 3)
        #expect(reopened.warnings.isEmpty)
    }

    @Test func theMarkerIsWrittenAtFirstOpenAndUpdatedOnCleanClose() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await filledStore(directory, count: 4)
        let first = try #require(try StoreMarker.load(directory.markerPath))
        #expect(first.messages == 0 && first.peers == 0 && first.storeID.count == 32)
        #expect(first.generation == 1)
        var info = stat()
        #expect(stat(directory.markerPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        try store.close()
        let second = try #require(try StoreMarker.load(directory.markerPath))
        #expect(
            second == StoreMarker(storeID: first.storeID, messages: 4, peers: 1, generation: 1))
        let reopened = try MessageStore.open(
            path: directory.storePath, marker: directory.markerPath)
        #expect(reopened.warnings.isEmpty)
        #expect(try await reopened.counts().queued == 4)
        // Each start is a new generation, recorded in the marker.
        #expect(try StoreMarker.load(directory.markerPath)?.generation == 2)
    }

    @Test func aDeletedStoreFileIsRefusedAndAReplacedOneToo() async throws {
        let directory = try TemporaryDirectory()
        let other = try TemporaryDirectory()
        defer {
            directory.remove()
            other.remove()
        }
        try await filledStore(directory, count: 1).close()
        try await filledStore(other, count: 1).close()
        try FileManager.default.removeItem(atPath: directory.storePath)
        #expect {
            try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        } throws: { error in
            (error as? StoreError)?.description.contains("lost its history") == true
        }
        // Refused before anything is created: no empty store left in its place (QA).
        #expect(access(directory.storePath, F_OK) != 0)
        try FileManager.default.copyItem(atPath: other.storePath, toPath: directory.storePath)
        #expect {
            try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        } throws: { error in
            (error as? StoreError)?.description.contains("is not the store") == true
        }
    }

    @Test func aDamagedMarkerIsRefusedWithItsName() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory, count: 1).close()
        try Data("lanchat store marker 1\nstore xyz\n".utf8).write(
            to: URL(fileURLWithPath: directory.markerPath))
        #expect {
            try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.kind == .corrupt && error.description.contains(directory.markerPath)
        }
        // A FIFO in its place is refused at once, with the reason.
        #expect(unlink(directory.markerPath) == 0 && mkfifo(directory.markerPath, 0o600) == 0)
        #expect {
            try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        } throws: { error in
            "\(error)".contains("is not a regular file")
        }
    }

    /// A restore is legitimate, so only a warning; but bob has seen seqs of ours the backup
    /// does not hold (here seq 3, sent after it), so the stream starts afresh: a new message
    /// at seq 3 would be a duplicate to him, and his cursor would mark it delivered unsent.
    @Test func aRestoredBackupOpensWithAWarningAndFreshStreams() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await filledStore(directory, count: 2)
        _ = try await store.markDelivered(
            peer: bob, stream: try #require(await store.outgoingState(for: bob)).stream, upTo: 1,
            at: 2_500)
        let before = try #require(try await store.outgoingState(for: bob))
        let backup = directory.path + "/backup.sqlite3"
        _ = try await store.backup(to: backup)
        _ = try await store.enqueue(to: bob, texts: ["after the backup"], at: 3_000)
        try store.close()
        try FileManager.default.removeItem(atPath: directory.storePath)
        try FileManager.default.copyItem(atPath: backup, toPath: directory.storePath)
        let restored = try MessageStore.open(
            path: directory.storePath, marker: directory.markerPath)
        #expect(try await restored.counts().queued == 1)
        #expect(restored.warnings.count == 1)
        #expect(restored.warnings.first?.contains("3 at the last clean stop") == true)
        #expect(restored.warnings.first?.contains("starts afresh") == true)

        let after = try #require(try await restored.outgoingState(for: bob))
        #expect(after.stream != before.stream)
        #expect(after.nextSeq == 2 && after.firstUndelivered == 1)
        let messages = try await restored.history(with: bob, limit: 10).messages
        #expect(messages.map(\.text) == ["message 0", "message 1"])
        // The delivered one stays where it went; the queued one moved, as seq 1.
        #expect(messages.map(\.stream) == [before.stream, after.stream])
        #expect(messages.map(\.seq) == [1, 1])
        #expect(try await restored.holdsOutgoing(to: bob, stream: before.stream))
        #expect(try await !restored.holdsOutgoing(to: bob, stream: 12_345))
        try restored.close()

        // Once: the marker now records this store, so the next start leaves it alone.
        let again = try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        defer { try? again.close() }
        #expect(again.warnings.isEmpty)
        #expect(try await again.outgoingState(for: bob) == after)
    }

    /// The generation decides, not the count (QA pass 10): after the backup a purge left
    /// the store with no more messages than the copy, so the count said nothing; the copy is
    /// older all the same, and its streams restart.
    @Test func aRestoredBackupIsOlderWhateverItHolds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await filledStore(directory, count: 2)
        let before = try #require(try await store.outgoingState(for: bob))
        _ = try await store.markDelivered(peer: bob, stream: before.stream, upTo: 1, at: 2_500)
        let backup = directory.path + "/backup.sqlite3"
        _ = try await store.backup(to: backup)
        #expect(try StoreMarker.load(directory.markerPath)?.generation == 2)
        _ = try await store.enqueue(to: bob, texts: ["after the backup"], at: 3_000)
        #expect(try await store.forget(bob, purge: true) == 2)
        try store.close()
        #expect(try StoreMarker.load(directory.markerPath)?.messages == 2)
        try FileManager.default.removeItem(atPath: directory.storePath)
        try FileManager.default.copyItem(atPath: backup, toPath: directory.storePath)

        let restored = try MessageStore.open(
            path: directory.storePath, marker: directory.markerPath)
        defer { try? restored.close() }
        #expect(restored.warnings.count == 1)
        #expect(
            restored.warnings.first?.contains("older than the store last used here") == true,
            "\(restored.warnings)")
        let after = try #require(try await restored.outgoingState(for: bob))
        #expect(after.stream != before.stream && after.nextSeq == 2)
        // Past every generation used here (2 before the restore), not only past the copy's 1:
        // a copy taken at 2 and restored later is older too.
        #expect(try StoreMarker.load(directory.markerPath)?.generation == 3)
    }

    /// No marker beside an existing store (moved aside to keep it, as lanchatd(8) allows, or a
    /// store brought from elsewhere): nothing says the peers last heard from this one, so
    /// its streams restart, with a warning. A version-1 marker is still read.
    @Test func aStoreWithoutItsMarkerRestartsItsStreams() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await filledStore(directory, count: 1)
        let before = try #require(try await store.outgoingState(for: bob))
        try store.close()
        let marker = try #require(try StoreMarker.load(directory.markerPath))
        try FileManager.default.removeItem(atPath: directory.markerPath)
        let alone = try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        #expect(alone.warnings.count == 1)
        #expect(alone.warnings.first?.contains("is missing: 1 outgoing streams") == true)
        #expect(try await alone.outgoingState(for: bob)?.stream != before.stream)
        try alone.close()

        // A marker from before generations: read, and the count rule applies.
        let old = StoreMarker(storeID: marker.storeID, messages: 1, peers: 1)
        try old.write(to: directory.markerPath)
        #expect(try StoreMarker.load(directory.markerPath) == old)
        let again = try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        defer { try? again.close() }
        #expect(again.warnings.isEmpty)
        #expect(try StoreMarker.load(directory.markerPath)?.generation != nil)
    }

    /// A marker a later lanchat wrote (a downgrade) is said to be that, not damaged: the
    /// advice for a damaged one, to move it aside, would drop the guard it stands for.
    @Test func aMarkerOfANewerLanchatIsRefusedAsSuchNotAsDamaged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await filledStore(directory, count: 1).close()
        let newer = "lanchat store marker 3\nstore \(String(repeating: "a", count: 32))\nnew 1\n"
        try Data(newer.utf8).write(to: URL(fileURLWithPath: directory.markerPath))
        let error = #expect(throws: StoreError.self) {
            try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        }
        #expect(error?.kind == .tooNew)
        #expect(error?.description.contains("newer lanchat (marker version 3)") == true)
        #expect(error?.description.contains("damaged") == false)
        // Anything else that is no marker is still damage.
        try Data("lanchat store marker x\n".utf8).write(
            to: URL(fileURLWithPath: directory.markerPath))
        let damaged = #expect(throws: StoreError.self) {
            try MessageStore.open(path: directory.storePath, marker: directory.markerPath)
        }
        #expect(damaged?.kind == .corrupt)
    }

    /// A store this user cannot write is refused before SQLite opens it, naming the file, its
    /// mode and owner and the fix (found by QA: "read-only or not accessible", and a `-shm`
    /// of mode 0400 left that refused the next start). Root passes `access(2)`, so the words
    /// are checked here and the refusal by scenario 31's unprivileged user.
    @Test func aStoreThisUserCannotWriteIsSaidWithItsFix() {
        let own = MessageStore.notWritable(
            "/d/lanchat.sqlite3", mode: 0o100400, owner: 1000, code: EACCES, user: 1000)
        #expect(
            own.description.contains(
                "/d/lanchat.sqlite3 cannot be read and written by this user (mode 400, owner you: "
                    + "Permission denied); fix: chmod 600 /d/lanchat.sqlite3"), "\(own)")
        let other = MessageStore.notWritable(
            "/d/lanchat.sqlite3-shm", mode: 0o100644, owner: 0, code: EACCES, user: 1000)
        #expect(
            other.description.contains(
                "owner uid 0: Permission denied); fix: chown 1000 /d/lanchat.sqlite3-shm && "
                    + "chmod 600 /d/lanchat.sqlite3-shm"), "\(other)")
    }

    @Test func backupWhileOpenIsAPrivateSingleFileWithEveryMessage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await filledStore(directory, count: 6)
        defer { try? store.close() }
        let path = directory.path + "/copy.sqlite3"
        let summary = try await store.backup(to: path)
        #expect(summary.path == path && summary.messages == 6)
        #expect(summary.bytes == fileSize(path) && summary.bytes > 0)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(fileSize(path + "-wal") == nil, "the copy is one file")
        #expect(try messageCount(inFile: path) == 6)
        // Made in the data directory and named `path` once whole (found by QA: a stop
        // half-way left a file at `path` that read as an empty store; then, made beside
        // `path`, another user swapped it for theirs): none is left over.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.contains(".partial") }, "\(names)")
        #expect(
            MessageStore.stagingPath(forStore: "/d/lanchat.sqlite3").hasPrefix("/d/.backup-"))
    }

    /// To another file system (a tmpfs here) the copy is an unnamed file of the destination's
    /// directory, linked at the path once whole: private, complete, nothing else left there;
    /// a staging file a stopped backup left beside the store is removed.
    @Test func aBackupToAnotherFileSystemIsPrivateAndWhole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var shm = stat()
        var here = stat()
        guard stat("/dev/shm", &shm) == 0, stat(directory.path, &here) == 0,
            shm.st_dev != here.st_dev
        else { return }
        let store = try await filledStore(directory, count: 3)
        defer { try? store.close() }
        let left = directory.path + "/.backup-7.partial"
        for stale in [left, left + "-journal"] {
            try Data("stale".utf8).write(to: URL(fileURLWithPath: stale))
        }
        let target = "/dev/shm/lanchat-backup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: target) }
        #expect(chmod(target, 0o777) == 0)
        let path = target + "/copy.db"
        let summary = try await store.backup(to: path)
        #expect(summary.messages == 3 && summary.bytes == fileSize(path))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_nlink == 1)
        #expect(try messageCount(inFile: path) == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["copy.db"])
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.hasPrefix(".backup-") }, "\(names)")
    }

    @Test func backupRefusesAnExistingFileAndARelativePath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await filledStore(directory, count: 1)
        defer { try? store.close() }
        let path = directory.path + "/taken"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: path))
        await #expect {
            try await store.backup(to: path)
        } throws: { error in
            (error as? BackupError)?.description.contains("already exists") == true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("keep me".utf8))
        await #expect(throws: BackupError.self) { try await store.backup(to: "relative.db") }
        #expect(!FileManager.default.fileExists(atPath: "relative.db"))
        // A directory's path (QA: "cannot create …/: Is a directory" of one that did not exist).
        // With or without the slash, an existing directory is said as one, as is a link to
        // one (QA).
        let link = directory.path + "/link"
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: directory.path)
        // A dangling link is something at the path too: never followed, never replaced.
        let dangling = directory.path + "/dangling"
        try FileManager.default.createSymbolicLink(
            atPath: dangling, withDestinationPath: directory.path + "/nowhere")
        await #expect {
            try await store.backup(to: dangling)
        } throws: { error in
            (error as? BackupError)?.description.contains("already exists") == true
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/nowhere"))
        for path in [directory.path + "/missing/", directory.path, link] {
            await #expect {
                try await store.backup(to: path)
            } throws: { error in
                (error as? BackupError)?.description.contains("give the backup a file name")
                    == true
            }
        }
    }
}

extension TemporaryDirectory {
    var markerPath: String { path + "/" + StoreMarker.fileName }
    var walPath: String { storePath + "-wal" }
}
