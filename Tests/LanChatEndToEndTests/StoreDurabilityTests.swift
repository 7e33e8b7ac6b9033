import Foundation
import Testing

extension EndToEnd {
    /// Issue 9 item 8 with the built binaries: a clean stop leaves the whole store in
    /// `lanchat.sqlite3`, a store whose `-wal` was damaged after a kill -9 is refused with a
    /// clear message (exit 78), and `lanchat backup` copies the running store without ever
    /// overwriting a file.
    @Suite struct StoreDurability {
        static let refusalTimeout: Duration = .seconds(5)

        /// alice with `lines` queued to bob, who was met and then stopped.
        static func aliceWithQueuedMessages(_ lines: [String], in sandbox: Sandbox) async throws
            -> DaemonProcess
        {
            let pair = try await DaemonPair.start(in: sandbox)
            #expect(await pair.bob.stop() == .exited(0))
            let sent = try await pair.alice.lanchat(
                ["send", "bob", "--lines"], input: Data((lines.joined(separator: "\n") + "\n").utf8)
            )
            #expect(sent.status == 0, "\(sent)")
            return pair.alice
        }

        /// A fresh data directory holding alice's key and `store` as its `lanchat.sqlite3`
        /// (nothing else: no -wal, no marker), and a daemon started on it.
        static func daemon(onStore store: String, keyFrom data: String, in sandbox: Sandbox)
            async throws -> DaemonProcess
        {
            let directory = sandbox.file("alone-\(UUID().uuidString.prefix(6))")
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
            try FileManager.default.copyItem(
                atPath: data + "/identity.key", toPath: directory + "/identity.key")
            try FileManager.default.copyItem(atPath: store, toPath: directory + "/lanchat.sqlite3")
            return try await DaemonProcess.start(
                "alone", in: sandbox, dataDirectory: directory, extraArguments: ["--no-mdns"])
        }

        /// `backup` put in place of `node`'s store as lanchatd(8) says (the daemon stopped, the
        /// copy in place of `lanchat.sqlite3`, no `-wal` or `-shm` left), and the node started
        /// again on its port, dialling `peers`.
        static func restore(
            _ backup: String, as node: DaemonProcess, port: UInt16, peers: [UInt16],
            in sandbox: Sandbox
        ) async throws -> DaemonProcess {
            let store = node.dataDirectory + "/lanchat.sqlite3"
            for file in [store, store + "-wal", store + "-shm"] {
                try? FileManager.default.removeItem(atPath: file)
            }
            try FileManager.default.copyItem(atPath: backup, toPath: store)
            return try await DaemonProcess.start(
                node.name, in: sandbox, port: port, peers: peers.map { "127.0.0.1:\($0)" })
        }

        @Test func aCleanStopLeavesEveryMessageInTheMainFile() async throws {
            try await inSandbox { sandbox in
                let lines = (1...5).map { "kept \($0)" }
                let alice = try await Self.aliceWithQueuedMessages(lines, in: sandbox)
                #expect(await alice.stop() == .exited(0), "\(alice.log)")
                let wal = alice.dataDirectory + "/lanchat.sqlite3-wal"
                let walSize =
                    (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
                #expect(walSize == 0, "the -wal must be empty or gone after a clean stop")

                let alone = try await Self.daemon(
                    onStore: alice.dataDirectory + "/lanchat.sqlite3", keyFrom: alice.dataDirectory,
                    in: sandbox)
                let history = try await alone.json(HistoryResult.self, ["history", "bob"])
                #expect(history.messages.map(\.text) == lines)
            }
        }

        @Test func aWALDamagedAfterAKillIsRefusedWithAClearMessage() async throws {
            try await inSandbox { sandbox in
                let alice = try await Self.aliceWithQueuedMessages(["only in the wal"], in: sandbox)
                alice.child.send(SIGKILL)
                #expect(await alice.child.waitForExit(within: .seconds(2)) == .signalled(SIGKILL))
                let wal = alice.dataDirectory + "/lanchat.sqlite3-wal"
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: wal))
                handle.write(Data(repeating: 0xA5, count: 32))  // the WAL header
                try handle.close()
                let files = ["lanchat.sqlite3", "lanchat.sqlite3-wal", "store.marker"]
                let found = try files.map {
                    try Data(contentsOf: URL(fileURLWithPath: alice.dataDirectory + "/" + $0))
                }

                let logPath = sandbox.file("refused.log")
                let restarted = try DaemonProcess.launchRaw(
                    [
                        "--name", "alice", "--data-dir", alice.dataDirectory, "--socket",
                        alice.socket, "--port", "0", "--no-mdns",
                    ], in: sandbox, logPath: logPath)
                let ended = await restarted.waitForExit(within: Self.refusalTimeout)
                let message = DaemonProcess.readLog(logPath)
                #expect(ended == .exited(78), "\(message)")
                for fragment in [
                    "lost its history", alice.dataDirectory + "/lanchat.sqlite3",
                    alice.dataDirectory + "/store.marker", "lanchat backup", "and start again",
                ] {
                    #expect(message.contains(fragment), "missing '\(fragment)': \(message)")
                }
                // Refused as found: nothing folded in, rewritten or created (QA).
                let after = try files.map {
                    try Data(contentsOf: URL(fileURLWithPath: alice.dataDirectory + "/" + $0))
                }
                #expect(after == found)
                let status = try await sandbox.lanchat(["--socket", alice.socket, "status"])
                #expect(status.status == 69, "no daemon may answer on that store: \(status)")
            }
        }

        /// A backup restored as lanchatd(8) says, while bob has seen more of alice's stream
        /// than it holds, and a message queued before bob is back: it reaches bob, once.
        /// Before, it took the seq of a message bob had, and bob's cursor marked it delivered
        /// without its ever being sent (QA pass 9).
        @Test func aMessageQueuedAfterRestoringABackupReachesThePeerOnce() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                let (alicePort, bobPort) = (try alice.port, try bob.port)
                let first = try await alice.lanchat(["send", "bob", "--wait", "before the backup"])
                #expect(first.status == 0, "\(first)")
                let hello = try await bob.lanchat(["send", "alice", "--wait", "bob's hello"])
                #expect(hello.status == 0, "\(hello)")
                let backup = sandbox.file("alice-backup.db")
                _ = try await alice.json(BackupObject.self, ["backup", backup])
                let second = try await alice.lanchat(["send", "bob", "--wait", "after the backup"])
                #expect(second.status == 0, "\(second)")
                let reply = try await bob.lanchat(["send", "alice", "--wait", "bob's reply"])
                #expect(reply.status == 0, "\(reply)")
                #expect(await alice.stop() == .exited(0), "\(alice.log)")
                #expect(await bob.stop() == .exited(0), "\(bob.log)")

                let restored = try await Self.restore(
                    backup, as: alice, port: alicePort, peers: [bobPort], in: sandbox)
                #expect(restored.log.contains("starts afresh"), "\(restored.log)")
                let queued = try await restored.lanchat(["send", "bob", "after the restore"])
                #expect(queued.status == 0, "\(queued)")
                let id = queued.output.trimmingCharacters(in: .whitespacesAndNewlines)

                let back = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort, peers: ["127.0.0.1:\(alicePort)"])
                let delivered = try await restored.awaitMessage(
                    id, to: "bob", status: "delivered", timeout: .seconds(10))
                #expect(delivered != nil, "\(restored.log)")
                let history = try await back.json(HistoryResult.self, ["history", "alice"])
                #expect(
                    history.messages.map(\.text)
                        == [
                            "before the backup", "bob's hello", "after the backup", "bob's reply",
                            "after the restore",
                        ],
                    "\(restored.log)\n\(back.log)")
                // The other way (PROTOCOL.md §9.3): alice's HELLO names bob's stream with the
                // backup's cursor, so bob sends again what came after it: his reply is in
                // alice's history once more, once.
                let recovered = try #require(
                    try await poll(timeout: .seconds(10)) {
                        let page = try await restored.json(HistoryResult.self, ["history", "bob"])
                        return page.messages.contains { $0.text == "bob's reply" } ? page : nil
                    }, "\(restored.log)\n\(back.log)")
                #expect(
                    recovered.messages.filter { $0.text == "bob's reply" }.count == 1,
                    "\(recovered.messages.map(\.text))\n\(restored.log)\n\(back.log)")
            }
        }

        /// Found by QA: alice's backup holds nothing from bob; bob's two messages after it are
        /// acknowledged, then the backup is restored. bob's next message makes alice adopt his
        /// stream there, and the two are not in her store: they stay delivered at bob's (never
        /// "read", which her next HELLO said), and her log says they are not here.
        @Test func messagesARestoredStoreNeverHadAreNotReportedRead() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                let (alicePort, bobPort) = (try alice.port, try bob.port)
                try await alice.sendDelivered("hello", to: "bob")
                let backup = sandbox.file("alice-backup.db")
                _ = try await alice.json(BackupObject.self, ["backup", backup])
                try await bob.sendDelivered("x1", to: "alice")
                try await bob.sendDelivered("x2", to: "alice")
                #expect(await alice.stop() == .exited(0), "\(alice.log)")
                var restored = try await Self.restore(
                    backup, as: alice, port: alicePort, peers: [bobPort], in: sandbox)
                try await bob.sendDelivered("x3", to: "alice")
                let warned = await restored.awaitLogLine(
                    "sent message 3 of a stream new to this store", "messages 1 to 2")
                #expect(warned != nil, "\(restored.log)")
                // A new session: its HELLO carries alice's read cursor for bob's stream.
                #expect(await restored.stop() == .exited(0), "\(restored.log)")
                restored = try await DaemonProcess.start(
                    "alice", in: sandbox, port: alicePort, peers: ["127.0.0.1:\(bobPort)"])
                #expect(try await bob.awaitOnline(restored.id), "\(bob.log)")
                try await bob.sendDelivered("x4", to: "alice")
                let statuses = try await bob.json(HistoryResult.self, ["history", "alice"])
                    .messages.filter { $0.direction == "out" }.map { $0.status ?? "" }
                #expect(statuses == ["delivered", "delivered", "delivered", "delivered"])
            }
        }

        /// The same with nothing to count: a purge after the backup left fewer messages than
        /// the copy holds, so only the store's generation tells the copy is older (QA pass
        /// 10: "four" and "five" took seqs bob had seen, and were shown delivered unsent).
        @Test func aRestoreIsSeenWhateverTheStoreHeldAtTheLastStop() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let (alice, bob) = (pair.alice, pair.bob)
                let (alicePort, bobPort) = (try alice.port, try bob.port)
                #expect(try await alice.lanchat(["send", "bob", "--wait", "one"]).status == 0)
                let backup = sandbox.file("alice-backup.db")
                _ = try await alice.json(BackupObject.self, ["backup", backup])
                for text in ["two", "three"] {
                    #expect(try await alice.lanchat(["send", "bob", "--wait", text]).status == 0)
                }
                let purged = try await alice.lanchat(["remove", "bob", "--purge"])
                #expect(purged.status == 0, "\(purged)")
                #expect(await bob.stop() == .exited(0), "\(bob.log)")
                #expect(await alice.stop() == .exited(0), "\(alice.log)")

                let restored = try await Self.restore(
                    backup, as: alice, port: alicePort, peers: [bobPort], in: sandbox)
                #expect(restored.log.contains("older than the store last used here"))
                var ids: [String] = []
                for text in ["four", "five"] {
                    let sent = try await restored.lanchat(["send", bob.id, text])
                    #expect(sent.status == 0, "\(sent)")
                    ids.append(sent.output.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                let back = try await DaemonProcess.start(
                    "bob", in: sandbox, port: bobPort, peers: ["127.0.0.1:\(alicePort)"])
                for id in ids {
                    let delivered = try await restored.awaitMessage(
                        id, to: bob.id, status: "delivered", timeout: .seconds(10))
                    #expect(delivered != nil, "\(restored.log)")
                }
                let history = try await back.json(HistoryResult.self, ["history", "alice"])
                #expect(
                    history.messages.map(\.text) == ["one", "two", "three", "four", "five"],
                    "\(restored.log)\n\(back.log)")
            }
        }

        /// Another node's store restored into a data directory is refused: it knows this node's
        /// key as a peer (found by QA: bob's backup restored into alice's directory sent bob's
        /// queued messages, and his conversations, as alice's).
        @Test func anotherNodesStoreIsRefused() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let bobsBackup = sandbox.file("bob-backup.db")
                _ = try await pair.bob.json(BackupObject.self, ["backup", bobsBackup])
                let alice = pair.alice
                #expect(await alice.stop() == .exited(0))
                let store = alice.dataDirectory + "/lanchat.sqlite3"
                // As QA did it: a data directory made anew around alice's key, so no marker
                // names another store (with one, the store is refused as replaced).
                let marker = alice.dataDirectory + "/store.marker"
                for file in [store, store + "-wal", store + "-shm", marker] {
                    try? FileManager.default.removeItem(atPath: file)
                }
                try FileManager.default.copyItem(atPath: bobsBackup, toPath: store)
                let (ended, log) = try await EndToEnd.DaemonLifecycle.refusedStart(
                    [
                        "--name", "alice", "--data-dir", alice.dataDirectory, "--socket",
                        alice.socket, "--port", "0", "--no-mdns",
                    ], in: sandbox)
                #expect(ended == .exited(78), "\(log)")
                #expect(log.contains("knows this node's own key as a peer"), "\(log)")
                // Refused before anything is written: no marker made, the store as copied.
                #expect(!FileManager.default.fileExists(atPath: marker))
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: store))
                        == Data(contentsOf: URL(fileURLWithPath: bobsBackup)))
            }
        }

        @Test func backupWhileRunningHoldsTheMessagesAndNeverOverwrites() async throws {
            try await inSandbox { sandbox in
                let lines = (1...4).map { "backed up \($0)" }
                let alice = try await Self.aliceWithQueuedMessages(lines, in: sandbox)
                let path = sandbox.file("alice-backup.db")
                let result = try await alice.json(BackupObject.self, ["backup", path])
                #expect(result.path == path && result.messages == 4 && result.bytes > 0)
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]
                #expect(mode as? Int == 0o600)

                // The copy is a working store: a daemon started on it has the messages.
                let restored = try await Self.daemon(
                    onStore: path, keyFrom: alice.dataDirectory, in: sandbox)
                let history = try await restored.json(HistoryResult.self, ["history", "bob"])
                #expect(history.messages.map(\.text) == lines)

                let taken = sandbox.file("taken.db")
                try Data("not a backup".utf8).write(to: URL(fileURLWithPath: taken))
                let refused = try await alice.lanchat(["backup", taken])
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.standardError.contains("already exists"), "\(refused)")
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: taken)) == Data("not a backup".utf8))
            }
        }
    }

    /// `lanchat backup --json`.
    struct BackupObject: Decodable {
        var path: String
        var bytes: Int
        var messages: Int
    }
}
