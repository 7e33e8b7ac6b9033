import Foundation
import Testing

extension EndToEnd {
    /// Scenario 5: how `lanchatd` starts, refuses to start and stops (lanchatd(8), PRODUCT.md
    /// §2–§3): exit codes, messages, files left behind.
    @Suite struct DaemonLifecycle {
        /// How long a daemon that must refuse to start may take to exit.
        static let refusalTimeout: Duration = .seconds(5)

        @Test(arguments: [SIGTERM, SIGINT])
        func signalStopsCleanlyWithinTwoSeconds(_ signal: Int32) async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let bob = pair.bob
                #expect(FileManager.default.fileExists(atPath: bob.socket))

                let clock = ContinuousClock()
                let started = clock.now
                let termination = await bob.stop(signal)
                let took = clock.now - started
                print("[e2e] signal \(signal) → lanchatd exit took \(milliseconds(took))")
                #expect(termination == .exited(0), "after signal \(signal): \(bob.log)")
                #expect(!FileManager.default.fileExists(atPath: bob.socket), "socket left behind")
                #expect(bob.logLines(containing: "lanchatd stopped").count == 1, "\(bob.log)")

                // A clean stop closes the session, so alice sees bob offline at once.
                let offline = try await pollUntil(timeout: .seconds(1)) {
                    try await pair.alice.peer(bob.id)?.presence == "offline"
                }
                #expect(offline, "alice still lists bob online after his clean stop")
                let status = try await sandbox.lanchat(["--socket", bob.socket, "status"])
                #expect(status.status == 69, "\(status)")
            }
        }

        @Test func secondDaemonOnTheSameDataDirectoryExits75NamingThePID() async throws {
            try await inSandbox { sandbox in
                let first = try await DaemonProcess.start("alice", in: sandbox)
                let logPath = sandbox.file("second.log")
                let second = try DaemonProcess.launchRaw(
                    [
                        "--name", "alice2", "--data-dir", first.dataDirectory, "--socket",
                        sandbox.file("second.sock"), "--port", "0",
                    ], in: sandbox, logPath: logPath)
                let ended = await second.waitForExit(within: Self.refusalTimeout)
                let message = DaemonProcess.readLog(logPath)
                #expect(ended == .exited(75), "\(message)")
                #expect(message.contains("\(first.child.pid)"), "must name the PID: \(message)")
                #expect(!FileManager.default.fileExists(atPath: sandbox.file("second.sock")))
                let status = try await first.lanchat(["status"])
                #expect(status.status == 0, "the first daemon keeps running: \(status)")
            }
        }

        @Test func corruptIdentityKeyExits78AndIsLeftUntouched() async throws {
            try await inSandbox { sandbox in
                let daemon = try await DaemonProcess.start("alice", in: sandbox)
                #expect(await daemon.stop() == .exited(0))
                let keyPath = daemon.dataDirectory + "/identity.key"
                var key = try #require(FileManager.default.contents(atPath: keyPath))
                #expect(key.count == 108)
                key[20] ^= 0x01  // one bit of the secret key: the checksum no longer matches
                try key.write(to: URL(fileURLWithPath: keyPath))
                let before = try Self.fileFacts(keyPath)

                let (ended, message) = try await Self.startAgain(daemon, in: sandbox)
                #expect(ended == .exited(78), "\(message)")
                #expect(message.contains("identity.key"), "the message names the file: \(message)")
                #expect(
                    message.contains("--reset-identity"), "the message names the fix: \(message)")
                #expect(try Self.fileFacts(keyPath) == before, "the key file must stay as it was")
                let leftovers = try FileManager.default.contentsOfDirectory(
                    atPath: daemon.dataDirectory)
                #expect(
                    !leftovers.contains { $0.hasPrefix("identity.key.") || $0.contains(".tmp-") },
                    "no new or moved key: \(leftovers)")
                #expect(!FileManager.default.fileExists(atPath: daemon.socket))
            }
        }

        /// PROTOCOL.md §5: only a first start creates a key by itself. A used data directory
        /// whose key file is gone (a store restored without it) is refused; --reset-identity
        /// goes on under a new key with the store as it was.
        @Test func aMissingKeyBesideAUsedStoreExits78UntilResetOnPurpose() async throws {
            try await inSandbox { sandbox in
                let daemon = try await DaemonProcess.start("alice", in: sandbox)
                let oldID = daemon.id
                #expect(
                    try await daemon.lanchat(["add", "carol", EndToEnd.Contacts.unseenID]).status
                        == 0)
                #expect(await daemon.stop() == .exited(0))
                try FileManager.default.removeItem(atPath: daemon.dataDirectory + "/identity.key")
                let (ended, message) = try await Self.startAgain(daemon, in: sandbox)
                #expect(ended == .exited(78), "\(message)")
                #expect(message.contains("identity.key is missing"), "\(message)")
                #expect(
                    message.contains("--reset-identity"), "the message names the fix: \(message)")
                #expect(
                    !FileManager.default.fileExists(atPath: daemon.dataDirectory + "/identity.key"),
                    "no key was created")

                let reset = try await DaemonProcess.start(
                    "alice", in: sandbox, dataDirectory: daemon.dataDirectory,
                    socket: daemon.socket, extraArguments: ["--reset-identity"])
                #expect(reset.id != oldID)
                let contacts = try await reset.json(ContactsObject.self, ["contacts"])
                #expect(contacts.contacts.map(\.alias) == ["carol"], "the store is kept")
            }
        }

        /// A store that fails its integrity check is refused with the way out; with
        /// --repair-store the daemon copies it into a new store, keeps the damaged file, and
        /// starts with every message (only an index page was damaged).
        @Test func aDamagedStoreExits78UntilRepairedOnPurpose() async throws {
            try await inSandbox { sandbox in
                let daemon = try await DaemonProcess.start("alice", in: sandbox)
                #expect(
                    try await daemon.lanchat(["add", "carol", EndToEnd.Contacts.unseenID]).status
                        == 0)
                for text in ["one", "two", "three"] {
                    #expect(try await daemon.lanchat(["send", "carol", text]).status == 0)
                }
                #expect(await daemon.stop() == .exited(0))
                try Self.damageAnIndexPage(daemon.dataDirectory + "/lanchat.sqlite3")

                let (ended, message) = try await Self.startAgain(daemon, in: sandbox)
                #expect(ended == .exited(78), "\(message)")
                #expect(message.contains("integrity check"), "\(message)")
                #expect(
                    message.contains("--repair-store"), "the message names the fix: \(message)")

                let repaired = try await DaemonProcess.start(
                    "alice", in: sandbox, dataDirectory: daemon.dataDirectory,
                    socket: daemon.socket, extraArguments: ["--repair-store"])
                #expect(repaired.id == daemon.id)
                #expect(
                    repaired.logLines(containing: "repaired").count == 1, "\(repaired.log)")
                let history = try await repaired.json(HistoryResult.self, ["history", "carol"])
                #expect(history.messages.map(\.text) == ["one", "two", "three"])
                let files = try FileManager.default.contentsOfDirectory(
                    atPath: daemon.dataDirectory)
                #expect(
                    files.contains { $0.hasPrefix("lanchat.sqlite3.damaged-") }, "\(files)")
            }
        }

        /// Overwrites the cells of the store's fullest index b-tree leaf in use (page type 0x0A:
        /// an index, or a table without rowid; not one on the free list, whose old contents
        /// nothing reads), leaving every page of rows as it was.
        static func damageAnIndexPage(_ path: String) throws {
            var file = try Data(contentsOf: URL(fileURLWithPath: path))
            func word(_ at: Int) -> Int {
                (0..<4).reduce(0) { $0 << 8 | Int(file[at + $1]) }
            }
            let declared = Int(file[16]) << 8 | Int(file[17])
            let pageSize = declared == 1 ? 65_536 : declared
            let pages = file.count / pageSize
            // Free pages: trunk pages from the header's offset 32, each listing its leaves.
            var free: Set<Int> = []
            var trunk = word(32)
            while trunk > 0, trunk <= pages, free.insert(trunk).inserted {
                let start = (trunk - 1) * pageSize
                for index in 0..<word(start + 4) { free.insert(word(start + 8 + 4 * index)) }
                trunk = word(start)
            }
            // The one holding the most entries: an empty index's page has no cell to damage.
            let cells = { (index: Int) in
                Int(file[index * pageSize + 3]) << 8 | Int(file[index * pageSize + 4])
            }
            let last = try #require(
                (1..<pages).filter { file[$0 * pageSize] == 0x0A && !free.contains($0 + 1) }
                    .max { cells($0) < cells($1) },
                "no index leaf page")
            for offset in 8..<(pageSize - 96) {
                file[last * pageSize + offset] = UInt8(truncatingIfNeeded: offset &* 151 &+ 7)
            }
            try file.write(to: URL(fileURLWithPath: path))
        }

        @Test func fileInPlaceOfTheDataDirectoryExits73() async throws {
            try await inSandbox { sandbox in
                let blocker = sandbox.file("not-a-directory")
                try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
                let (ended, message) = try await Self.refusedStart(
                    [
                        "--name", "alice", "--data-dir", blocker, "--socket",
                        sandbox.file("a.sock"), "--port", "0",
                    ], in: sandbox)
                #expect(ended == .exited(73), "\(message)")
                #expect(message.contains(blocker), "the message names the path: \(message)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: blocker)) == Data("x".utf8))
            }
        }

        /// A socket another lanchatd answers on is refused before a key or a store is made in
        /// the new data directory (found by QA: a key, a store and a marker were left there).
        @Test func aSocketInUseExits73AndLeavesTheDataDirectoryAlone() async throws {
            try await inSandbox { sandbox in
                let alice = try await DaemonProcess.start("alice", in: sandbox)
                let fresh = sandbox.file("second-data")
                let (ended, message) = try await Self.refusedStart(
                    [
                        "--name", "second", "--data-dir", fresh, "--socket",
                        sandbox.file("alice.sock"), "--port", "0",
                    ], in: sandbox)
                #expect(ended == .exited(73), "\(message)")
                #expect(message.contains("in use by another lanchatd"), "\(message)")
                for file in ["identity.key", "lanchat.sqlite3", "store.marker"] {
                    #expect(
                        !FileManager.default.fileExists(atPath: fresh + "/" + file),
                        "\(file) was made")
                }
                #expect(try await alice.json(StatusCounts.self, ["status"]).queued == 0)
            }
        }

        /// Issue 9 item 3: only a stale socket may be replaced; a regular file at the
        /// `--socket` path is an error and keeps its content.
        @Test func regularFileAtTheSocketPathExits73AndIsKept() async throws {
            try await inSandbox { sandbox in
                let precious = sandbox.file("notes.txt")
                try Data("keep me".utf8).write(to: URL(fileURLWithPath: precious))
                let (ended, message) = try await Self.refusedStart(
                    [
                        "--name", "alice", "--data-dir", sandbox.file("data"), "--socket",
                        precious, "--port", "0",
                    ], in: sandbox)
                #expect(ended == .exited(73), "\(message)")
                #expect(message.contains("is not a socket"), "a clear message: \(message)")
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: precious)) == Data("keep me".utf8))
            }
        }

        /// `--socket /tmp/alice.sock` (README) must neither fail nor change /tmp's mode: a
        /// directory that exists keeps its mode, a missing one is created 0700.
        @Test func anExistingSocketDirectoryKeepsItsMode() async throws {
            try await inSandbox { sandbox in
                for (name, mode) in [("shared", 0o1777), ("open", 0o755)] {
                    let directory = sandbox.file(name)
                    try FileManager.default.createDirectory(
                        atPath: directory, withIntermediateDirectories: false)
                    #expect(chmod(directory, mode_t(mode)) == 0)
                    let daemon = try await DaemonProcess.start(
                        name, in: sandbox, socket: directory + "/\(name).sock")
                    #expect(try Self.mode(of: directory) == mode, "\(name) keeps its mode")
                    #expect(try Self.mode(of: daemon.socket) == 0o600)
                }
                let created = sandbox.file("new/run")
                _ = try await DaemonProcess.start("new", in: sandbox, socket: created + "/n.sock")
                #expect(try Self.mode(of: created) == 0o700)
            }
        }

        /// Another user's directory lets them replace the socket, sticky or not (its owner
        /// may remove what is in it; found by QA): refused with exit 73. A sticky one of
        /// root's (/tmp) is fine. Needs root, to give a directory away.
        @Test(.enabled(if: getuid() == 0)) func anotherUsersSocketDirectoryExits73() async throws {
            try await inSandbox { sandbox in
                let directory = sandbox.file("theirs")
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: false)
                #expect(chmod(directory, 0o777) == 0)
                #expect(chown(directory, 65534, 65534) == 0)
                let logPath = sandbox.file("theirs.log")
                let refused = try DaemonProcess.launchRaw(
                    [
                        "--name", "alice", "--data-dir", sandbox.file("data"), "--socket",
                        directory + "/a.sock", "--port", "0",
                    ], in: sandbox, logPath: logPath)
                let ended = await refused.waitForExit(within: Self.refusalTimeout)
                let message = DaemonProcess.readLog(logPath)
                #expect(ended == .exited(73), "\(message)")
                #expect(message.contains("belongs to uid 65534"), "a clear message: \(message)")
                #expect(try Self.mode(of: directory) == 0o777, "left as it was")

                #expect(chmod(directory, 0o1777) == 0)
                let sticky = try DaemonProcess.launchRaw(
                    [
                        "--name", "alice", "--data-dir", sandbox.file("data"), "--socket",
                        directory + "/a.sock", "--port", "0",
                    ], in: sandbox, logPath: logPath)
                #expect(await sticky.waitForExit(within: Self.refusalTimeout) == .exited(73))
                #expect(DaemonProcess.readLog(logPath).contains("belongs to uid 65534"))

                #expect(chown(directory, 0, 0) == 0 && chmod(directory, 0o1777) == 0)
                // Another user's socket file at the path, in /tmp's kind of directory: named
                // as such (found by QA: "Address already in use"), and left alone.
                let planted = directory + "/b.sock"
                #expect(
                    mknod(planted, S_IFSOCK | 0o600, 0) == 0 && lchown(planted, 65534, 65534) == 0)
                let theirs = try DaemonProcess.launchRaw(
                    [
                        "--name", "alice", "--data-dir", sandbox.file("data"), "--socket", planted,
                        "--port", "0",
                    ], in: sandbox, logPath: logPath)
                #expect(await theirs.waitForExit(within: Self.refusalTimeout) == .exited(73))
                #expect(
                    DaemonProcess.readLog(logPath).contains(
                        "is a socket of uid 65534, another user"))
                var kept = stat()
                #expect(lstat(planted, &kept) == 0 && kept.st_uid == 65534)
                _ = try await DaemonProcess.start(
                    "alice", in: sandbox, socket: directory + "/a.sock")
            }
        }

        static func mode(of path: String) throws -> Int {
            var info = stat()
            guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
            return Int(info.st_mode & 0o7777)
        }

        @Test func restartAfterACrashKeepsTheIdentityAndReplacesTheStaleSocket() async throws {
            try await inSandbox { sandbox in
                let first = try await DaemonProcess.start("alice", in: sandbox)
                first.child.send(SIGKILL)
                #expect(await first.child.waitForExit(within: .seconds(2)) == .signalled(SIGKILL))
                #expect(
                    FileManager.default.fileExists(atPath: first.socket),
                    "a killed daemon leaves its socket file behind")
                let status = try await sandbox.lanchat(["--socket", first.socket, "status"])
                #expect(status.status == 69, "a stale socket means no daemon: \(status)")

                let again = try await DaemonProcess.start(
                    "alice", in: sandbox, dataDirectory: first.dataDirectory,
                    socket: first.socket)
                #expect(again.id == first.id, "the identity survives a crash")
            }
        }

        @Test func portOrSocketInUseExits73() async throws {
            try await inSandbox { sandbox in
                let first = try await DaemonProcess.start("alice", in: sandbox)
                // The port's error is the system's text, not NIO's call (found by QA).
                let cases: [(String, [String], String)] = [
                    (
                        "port in use",
                        ["--socket", sandbox.file("b.sock"), "--port", "\(try first.port)"],
                        "port \(try first.port): Address already in use\n"
                    ),
                    ("socket in use", ["--socket", first.socket, "--port", "0"], first.socket),
                ]
                for (label, arguments, saying) in cases {
                    let logPath = sandbox.file("\(label.prefix(4)).log")
                    let second = try DaemonProcess.launchRaw(
                        ["--name", "bob", "--data-dir", sandbox.file("bob-data")] + arguments,
                        in: sandbox, logPath: logPath)
                    let ended = await second.waitForExit(within: Self.refusalTimeout)
                    let message = DaemonProcess.readLog(logPath)
                    #expect(ended == .exited(73), "\(label): \(message)")
                    #expect(message.contains(saying), "\(label): \(message)")
                }
                let status = try await first.lanchat(["status"])
                #expect(status.status == 0, "the first daemon keeps its socket: \(status)")
            }
        }

        @Test func badUsageExits64() async throws {
            try await inSandbox { sandbox in
                let cases = [
                    ["--bogus"], ["--port", "70000"], ["--port", "-1"], ["--log-level", "loud"],
                    ["--peer", "not-an-address"], ["--name", ""],
                    // An empty path would be the current directory (found by QA: the data
                    // directory took it over and made it 0700).
                    ["--data-dir", ""], ["--socket", ""], ["--config", ""], ["--interface", ""],
                    // Names no Linux interface can have (found by QA: taken, and the daemon
                    // then took connections on loopback only).
                    ["--interface", "sixteen-bytes-xx"], ["--interface", "a/b"],
                ]
                for arguments in cases {
                    let logPath = sandbox.file("usage.log")
                    let daemon = try DaemonProcess.launchRaw(
                        ["--data-dir", sandbox.file("data"), "--socket", sandbox.file("s.sock")]
                            + arguments, in: sandbox, logPath: logPath)
                    let ended = await daemon.waitForExit(within: Self.refusalTimeout)
                    let message = DaemonProcess.readLog(logPath)
                    #expect(ended == .exited(64), "\(arguments): \(message)")
                    #expect(!message.isEmpty, "\(arguments): a message says why")
                }
            }
        }

        /// Content, inode and modification time: "unchanged" in every sense a user checks.
        struct FileFacts: Equatable {
            var content: Data
            var inode: UInt64
            var modified: Date?
            var permissions: Int?
        }

        /// Starts lanchatd again on `daemon`'s data directory and socket, for a start that
        /// must be refused: how it ended (nil if it still ran after `refusalTimeout`) and
        /// what it wrote.
        static func startAgain(_ daemon: DaemonProcess, in sandbox: Sandbox) async throws
            -> (Termination?, String)
        {
            try await refusedStart(
                [
                    "--name", daemon.name, "--data-dir", daemon.dataDirectory, "--socket",
                    daemon.socket, "--port", "0",
                ], in: sandbox)
        }

        /// Starts lanchatd with `arguments`, for a start that must be refused: how it ended
        /// (nil if it still ran after `refusalTimeout`) and what it wrote.
        static func refusedStart(_ arguments: [String], in sandbox: Sandbox) async throws
            -> (Termination?, String)
        {
            let logPath = sandbox.file("refused-\(UUID().uuidString.prefix(6)).log")
            let child = try DaemonProcess.launchRaw(arguments, in: sandbox, logPath: logPath)
            let ended = await child.waitForExit(within: refusalTimeout)
            return (ended, DaemonProcess.readLog(logPath))
        }

        static func fileFacts(_ path: String) throws -> FileFacts {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return FileFacts(
                content: try Data(contentsOf: URL(fileURLWithPath: path)),
                inode: (attributes[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0,
                modified: attributes[.modificationDate] as? Date,
                permissions: (attributes[.posixPermissions] as? NSNumber)?.intValue)
        }
    }
}
