import Glibc
import LanChatCore
import LanChatCrypto
import Testing

/// PROTOCOL.md §7.3 items 36–39 on real files in a temporary directory.
@Suite struct IdentityKeyFileTests {
    /// A fresh 0700 directory under /tmp, removed by the caller with `removeTree`.
    static func makeDirectory() throws -> String {
        var template = Array("/tmp/lanchat-keytest-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        guard made else { throw MissingValue(description: "mkdtemp failed") }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func removeTree(_ path: String) {
        guard let handle = opendir(path) else { return }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(handle)
        rmdir(path)
    }

    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        chmod(path, mode)
    }

    static func read(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes {
            Glibc.read(descriptor, $0.baseAddress, $0.count)
        }
        return Array(buffer.prefix(max(count, 0)))
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    static func names(in path: String) -> Set<String> {
        guard let handle = opendir(path) else { return [] }
        defer { closedir(handle) }
        var names: Set<String> = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.insert(name) }
        }
        return names
    }

    /// Item 36: a missing key is created 0600 in a 0700 directory; reload gives the same key.
    @Test func item36MissingKeyIsCreatedAndReloads() throws {
        let root = try Self.makeDirectory()
        defer {
            Self.removeTree(root + "/data")
            Self.removeTree(root)
        }
        let directory = root + "/data"
        let (created, wasCreated) = try IdentityKeyPair.loadOrCreate(directory: directory)
        #expect(wasCreated)
        #expect(Self.mode(directory) == 0o700)
        #expect(Self.mode(directory + "/identity.key") == 0o600)
        #expect(Self.read(directory + "/identity.key").count == 108)
        let (loaded, createdAgain) = try IdentityKeyPair.loadOrCreate(directory: directory)
        #expect(!createdAgain)
        #expect(loaded.publicKey == created.publicKey)
        #expect(
            try IdentityKeyPair.load(path: directory + "/identity.key").publicKey
                == created.publicKey)
    }

    @Test func vectorKeyFileLoadsToTheVectorKey() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        Self.write(LCHTVector.keyFile, to: directory + "/identity.key")
        let (identity, created) = try IdentityKeyPair.loadOrCreate(directory: directory)
        #expect(!created)
        #expect(identity.publicKey.bytes == LCHTVector.initiatorPublic)
    }

    /// Item 37: unsafe mode, another owner, a symlink, or a directory that is not ours.
    @Test func item37UnsafeFilesAndDirectoriesAreRefused() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        let path = directory + "/identity.key"
        for mode: mode_t in [0o644, 0o640, 0o604, 0o660] {
            Self.write(LCHTVector.keyFile, to: path, mode: mode)
            let error = #expect(throws: IdentityKeyError.self) {
                try IdentityKeyPair.loadOrCreate(directory: directory)
            }
            #expect(error?.code == .insecureMode(mode: 0o100000 | UInt32(mode)))
            #expect(error?.description.contains("chmod 600") == true)
        }
        // Another owner needs root to arrange (CI runs as root).
        if geteuid() == 0 {
            Self.write(LCHTVector.keyFile, to: path)
            chown(path, 4_242, 4_242)
            #expect(throws: IdentityKeyError(.wrongOwner(owner: 4_242), path: path)) {
                try IdentityKeyPair.loadOrCreate(directory: directory)
            }
        }
        unlink(path)
        Self.write(LCHTVector.keyFile, to: directory + "/real.key")
        symlink(directory + "/real.key", path)
        #expect(throws: IdentityKeyError(.symbolicLink, path: path)) {
            try IdentityKeyPair.loadOrCreate(directory: directory)
        }
        unlink(path)
        Self.write(LCHTVector.keyFile, to: path)
        chmod(directory, 0o770)
        #expect(
            throws: IdentityKeyError(.directoryWritableByOthers(mode: 0o40770), path: directory)
        ) {
            try IdentityKeyPair.loadOrCreate(directory: directory)
        }
        chmod(directory, 0o700)
        if geteuid() == 0 {
            chown(directory, 4_242, 4_242)
            #expect(throws: IdentityKeyError(.directoryNotOwned(owner: 4_242), path: directory)) {
                try IdentityKeyPair.load(path: path)
            }
            chown(directory, geteuid(), getegid())
        }
        #expect(throws: Never.self) { try IdentityKeyPair.load(path: path) }
    }

    /// Item 38: every corruption is refused, and the file is left exactly as it was.
    @Test func item38CorruptKeyFilesAreRefusedAndLeftUntouched() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        let path = directory + "/identity.key"
        var zeroSecret = LCHTVector.keyFile
        for index in 12..<44 { zeroSecret[index] = 0 }
        var wrongPublic = LCHTVector.keyFile
        wrongPublic[50] ^= 1
        var badFlags = LCHTVector.keyFile
        badFlags[11] = 1
        var badMagic = LCHTVector.keyFile
        badMagic[0] ^= 1
        var badChecksum = LCHTVector.keyFile
        badChecksum[100] ^= 1
        let cases: [(String, [UInt8])] = [
            ("short", Array(LCHTVector.keyFile.dropLast())), ("long", LCHTVector.keyFile + [0]),
            ("empty", []), ("magic", badMagic), ("flags", badFlags), ("checksum", badChecksum),
            ("public key", try rechecksummed(wrongPublic)),
            ("zero secret", try rechecksummed(zeroSecret)),
            ("flags with valid checksum", try rechecksummed(badFlags)),
        ]
        for (name, bytes) in cases {
            Self.write(bytes, to: path)
            let inodeBefore = Self.inode(path)
            let error = #expect(throws: IdentityKeyError.self, "\(name)") {
                try IdentityKeyPair.loadOrCreate(directory: directory)
            }
            guard case .corrupt = error?.code else {
                Issue.record("\(name): \(String(describing: error))")
                continue
            }
            #expect(error?.description.contains("--reset-identity") == true)
            #expect(Self.inode(path) == inodeBefore, "\(name)")
            #expect(Self.read(path) == bytes, "\(name)")
            #expect(Self.names(in: directory) == ["identity.key"])
        }
    }

    /// Item 39: after an interrupted write at any step, the old or the new file is intact and
    /// stale temporaries are removed on the next start.
    @Test func item39InterruptedWritesLeaveOldOrNewFileAndStaleTempsGo() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        let (old, _) = try IdentityKeyPair.loadOrCreate(directory: directory)
        let new = try IdentityKeyPair.generate()
        for step: KeyFileSystem.Step in [.write, .fsync, .rename] {
            try IdentityKeyPair.writeInterruptedForTesting(
                new, directory: directory, stopAfter: step)
            let (loaded, created) = try IdentityKeyPair.loadOrCreate(directory: directory)
            #expect(!created)
            let expected = step == .rename ? new.publicKey : old.publicKey
            #expect(loaded.publicKey == expected, "\(step)")
            #expect(Self.names(in: directory) == ["identity.key"], "\(step)")
            if step == .rename {
                try IdentityKeyPair.writeInterruptedForTesting(
                    old, directory: directory, stopAfter: .rename)
            }
        }
        Self.write([1, 2, 3], to: directory + "/.identity.key.tmp-deadbeef")
        Self.write([1, 2, 3], to: directory + "/.other.tmp-1")
        #expect(KeyFileSystem.removeStaleTemporaries(in: directory) == 2)
    }

    @Test func resetMovesTheBrokenKeyAsideAndCreatesANewOne() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        let path = directory + "/identity.key"
        Self.write(Array(LCHTVector.keyFile.prefix(50)), to: path)
        #expect(chmod(path, 0o644) == 0)
        let (fresh, movedTo) = try IdentityKeyPair.reset(directory: directory)
        let moved = try #require(movedTo)
        #expect(moved.hasPrefix(path + ".broken-") && moved.hasSuffix("Z"))
        #expect(Self.read(moved) == Array(LCHTVector.keyFile.prefix(50)))
        // Most of a secret: the user's alone, whatever mode it had (found by QA).
        var aside = stat()
        #expect(stat(moved, &aside) == 0 && aside.st_mode & 0o777 == 0o600)
        #expect(try IdentityKeyPair.load(path: path).publicKey == fresh.publicKey)
        // The new key is healthy: a second reset is refused and changes nothing.
        #expect(throws: IdentityKeyError.self) { try IdentityKeyPair.reset(directory: directory) }
        #expect(try IdentityKeyPair.load(path: path).publicKey == fresh.publicKey)
        #expect(Self.names(in: directory).count == 2)
        // A missing key is created.
        #expect(unlink(path) == 0)
        let (created, nothingMoved) = try IdentityKeyPair.reset(directory: directory)
        #expect(nothingMoved == nil && created.publicKey != fresh.publicKey)
    }

    /// A valid key refused only for its mode or for being a link is this node's identity:
    /// `--reset-identity` keeps it and says how to fix the refusal (QA: a 0644 key and a link
    /// to a valid key were replaced by new ones).
    @Test func resetKeepsAValidKeyRefusedForItsModeOrLink() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        let path = directory + "/identity.key"
        let (original, _) = try IdentityKeyPair.loadOrCreate(directory: directory)
        let image = Self.read(path)
        #expect(chmod(path, 0o644) == 0)
        do {
            _ = try IdentityKeyPair.reset(directory: directory)
            Issue.record("a 0644 key was replaced")
        } catch {
            guard case .resetOfRefusedKey(let keyTag, _) = error.code else {
                Issue.record("\(error)")
                return
            }
            #expect(keyTag == Fingerprint.keyTag(original.publicKey))
            #expect(error.description.contains("chmod 600"), "\(error)")
        }
        #expect(Self.read(path) == image && Self.names(in: directory) == ["identity.key"])

        #expect(rename(path, directory + "/real.key") == 0)
        #expect(chmod(directory + "/real.key", 0o600) == 0)
        #expect(symlink(directory + "/real.key", path) == 0)
        #expect(throws: IdentityKeyError.self) { try IdentityKeyPair.reset(directory: directory) }
        #expect(Self.read(directory + "/real.key") == image)
        #expect(Self.names(in: directory) == ["identity.key", "real.key"])

        // A link to nothing holds no key: moved aside, and a new key made.
        #expect(unlink(path) == 0 && symlink(directory + "/gone.key", path) == 0)
        let (fresh, movedTo) = try IdentityKeyPair.reset(directory: directory)
        #expect(movedTo != nil && fresh.publicKey != original.publicKey)
    }

    /// A FIFO in place of the key is refused at once, not waited on (QA: the start hung).
    @Test func aFIFOInPlaceOfTheKeyIsRefusedAtOnce() throws {
        let directory = try Self.makeDirectory()
        defer { Self.removeTree(directory) }
        let path = directory + "/identity.key"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: IdentityKeyError(.notRegularFile, path: path)) {
            try IdentityKeyPair.loadOrCreate(directory: directory)
        }
    }

    /// The vector's checksum recomputed over modified content (BLAKE2b-256 of bytes 0..<76).
    func rechecksummed(_ bytes: [UInt8]) throws -> [UInt8] {
        Array(bytes.prefix(76)) + (try KeyFileChecksum.compute(Array(bytes.prefix(76))))
    }
}
