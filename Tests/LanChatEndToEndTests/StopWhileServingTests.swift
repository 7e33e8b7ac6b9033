import Foundation
import Testing

extension EndToEnd {
    /// A daemon stopped while `lanchat` is at work (found by QA): a `send --wait` in progress
    /// is answered with its ids and exit 75, so a script does not send the message twice,
    /// and `send --lines` rides out a restart, sending the lines that came meanwhile once.
    @Suite struct StopWhileServing {
        /// A valid id no daemon has: a contact whose messages stay queued.
        static let absentID = "BB" + String(repeating: "A", count: 49) + "Q"

        /// `lanchat ARGUMENTS` against `node`, its standard input a pipe the test writes to,
        /// its output and errors in files.
        static func launch(_ arguments: [String], on node: DaemonProcess, in sandbox: Sandbox)
            throws -> (process: Process, input: Pipe, output: String, errors: String)
        {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Binaries.lanchat())
            process.arguments = ["--socket", node.socket] + arguments
            let tag = UUID().uuidString.prefix(6)
            let output = sandbox.file("lanchat-\(tag).out")
            let errors = sandbox.file("lanchat-\(tag).err")
            for path in [output, errors] {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
            return (process, input, output, errors)
        }

        static func contents(_ path: String) -> String {
            (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }

        /// alice alone, with `ghost` (never met) as a contact: what she sends it stays queued.
        static func aliceWithAbsentGhost(in sandbox: Sandbox) async throws -> DaemonProcess {
            let alice = try await DaemonProcess.start(
                "alice", in: sandbox, extraArguments: ["--no-mdns"])
            let added = try await alice.lanchat(["add", "ghost", absentID])
            #expect(added.status == 0, "\(added)")
            return alice
        }

        /// alice again, on the same data directory and socket.
        static func restart(_ node: DaemonProcess, in sandbox: Sandbox) async throws
            -> DaemonProcess
        {
            try await DaemonProcess.start(
                node.name, in: sandbox, dataDirectory: node.dataDirectory, socket: node.socket,
                extraArguments: ["--no-mdns"])
        }

        @Test func aWaitCutShortByTheStopGivesTheIDAndExit75() async throws {
            try await inSandbox { sandbox in
                let alice = try await Self.aliceWithAbsentGhost(in: sandbox)
                let (process, _, output, errors) = try Self.launch(
                    ["send", "ghost", "wait for me", "--wait", "--timeout", "60"], on: alice,
                    in: sandbox)
                defer { if process.isRunning { process.terminate() } }
                // Stored, and the wait under way.
                #expect(
                    try await pollUntil(timeout: .seconds(10)) {
                        try await alice.json(HistoryResult.self, ["history", "ghost"]).messages
                            .count == 1
                    })
                #expect(await alice.stop() == .exited(0), "\(alice.log)")
                #expect(await pollUntil(timeout: .seconds(10)) { !process.isRunning })
                #expect(process.terminationStatus == 75, "\(Self.contents(errors))")
                let id = Self.contents(output).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(
                    id.isLowercaseUUID, "the id of the stored message: \(Self.contents(output))")
                #expect(
                    Self.contents(errors).contains("do not send it again"),
                    "\(Self.contents(errors))")

                let again = try await Self.restart(alice, in: sandbox)
                let kept = try await again.json(HistoryResult.self, ["history", "ghost"]).messages
                #expect(kept.map(\.id) == [id])
            }
        }

        /// Requests pipelined on one connection when the stop comes: every one the daemon
        /// ran is answered (QA: of 800, one was stored and the connection reset before its
        /// answer), and none after the stop is run.
        @Test func everyRequestRunBeforeTheStopIsAnswered() async throws {
            try await inSandbox { sandbox in
                let alice = try await Self.aliceWithAbsentGhost(in: sandbox)
                let client = try await ControlSocketClient.connect(to: alice.socket)
                defer { client.close() }
                let requests = (0..<400).map { index in
                    #"{"jsonrpc":"2.0","id":\#(index),"method":"send","params":"#
                        + #"{"peer":"ghost","text":"p\#(index)"}}"#
                }
                try await client.sendLine(requests.joined(separator: "\n"))
                // Some answered, so the stop comes in the middle of the stream.
                _ = try await client.receiveObject()
                #expect(await alice.stop() == .exited(0), "\(alice.log)")
                var answered = 1
                while let object = try? await client.receiveObject(timeout: .seconds(2)) {
                    #expect(object["result"] != nil, "\(object)")
                    answered += 1
                }
                let again = try await Self.restart(alice, in: sandbox)
                let stored = try await again.json(
                    HistoryResult.self, ["history", "ghost", "--limit", "1000"]
                ).messages.count
                #expect(stored == answered, "stored \(stored), answered \(answered)")
            }
        }

        @Test func sendLinesRidesOutARestart() async throws {
            try await inSandbox { sandbox in
                let alice = try await Self.aliceWithAbsentGhost(in: sandbox)
                let (process, input, output, errors) = try Self.launch(
                    ["send", "ghost", "--lines"], on: alice, in: sandbox)
                defer { if process.isRunning { process.terminate() } }
                func texts(_ node: DaemonProcess) async throws -> [String] {
                    try await node.json(HistoryResult.self, ["history", "ghost"]).messages.map(
                        \.text)
                }
                try input.fileHandleForWriting.write(contentsOf: Data("L1\n".utf8))
                #expect(
                    try await pollUntil(timeout: .seconds(10)) { try await texts(alice) == ["L1"] })

                #expect(await alice.stop() == .exited(0), "\(alice.log)")
                try input.fileHandleForWriting.write(contentsOf: Data("L2\n".utf8))
                #expect(
                    await pollUntil(timeout: .seconds(10)) {
                        Self.contents(errors).contains("lanchatd is not running")
                    }, "\(Self.contents(errors))")
                #expect(process.isRunning, "waits for the daemon: \(Self.contents(errors))")

                let again = try await Self.restart(alice, in: sandbox)
                #expect(
                    try await pollUntil(timeout: .seconds(10)) {
                        try await texts(again) == ["L1", "L2"]
                    })
                try input.fileHandleForWriting.write(contentsOf: Data("L3\n".utf8))
                try input.fileHandleForWriting.close()
                #expect(await pollUntil(timeout: .seconds(10)) { !process.isRunning })
                #expect(process.terminationStatus == 0, "\(Self.contents(errors))")
                #expect(try await texts(again) == ["L1", "L2", "L3"])
                #expect(Self.contents(output).split(separator: "\n").count == 3)
                #expect(Self.contents(errors).contains("lanchatd is back"))
            }
        }
    }
}
