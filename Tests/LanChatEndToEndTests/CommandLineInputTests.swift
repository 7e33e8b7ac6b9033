import Foundation
import Testing

extension EndToEnd {
    /// Scenario 4: what `lanchat` tells its user about bad input, with the sysexits(3)
    /// codes of PRODUCT.md §4, against real daemons.
    @Suite struct CommandLineInput {
        /// Input `lanchat send bob …` must refuse with exit 65, sending nothing.
        struct BadText: Sendable, CustomTestStringConvertible {
            var testDescription: String
            var arguments: [String]
            var input: Data?

            static let all: [BadText] = [
                BadText(testDescription: "empty argument", arguments: [""]),
                BadText(testDescription: "only white space", arguments: [" \t "]),
                BadText(
                    testDescription: "65 537-byte argument",
                    arguments: [String(repeating: "x", count: 65537)]),
                BadText(
                    testDescription: "65 537 bytes on stdin", arguments: [],
                    input: Data(repeating: UInt8(ascii: "y"), count: 65537)),
                BadText(
                    testDescription: "invalid UTF-8 on stdin", arguments: [],
                    input: Data([0x68, 0x69, 0x20, 0xFF, 0xFE, 0x21])),
                BadText(testDescription: "empty stdin", arguments: ["-"], input: Data()),
                // The stores would keep only "before": refused, not cut.
                BadText(
                    testDescription: "NUL on stdin", arguments: [],
                    input: Data("before\u{0}after".utf8)),
            ]
        }

        @Test func badTextExits65AndSendsNothing() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                for bad in BadText.all {
                    let result = try await pair.alice.lanchat(
                        ["send", "bob"] + bad.arguments, input: bad.input)
                    #expect(result.status == 65, "\(bad.testDescription): \(result)")
                    #expect(result.output.isEmpty, "\(bad.testDescription): \(result)")
                    #expect(
                        result.standardError.hasPrefix("lanchat: "),
                        "\(bad.testDescription): \(result)")
                }
                let history = try await pair.alice.json(HistoryResult.self, ["history", "bob"])
                #expect(history.messages.isEmpty, "nothing may have been stored")
                let received = try await pair.bob.json(HistoryResult.self, ["history", "alice"])
                #expect(received.messages.isEmpty, "nothing may have been sent")

                // The limits are inclusive: exactly 65 536 bytes is a message.
                let largest = String(repeating: "z", count: 65536)
                let accepted = try await pair.alice.sendDelivered(largest, to: "bob")
                #expect(accepted.text.utf8.count == 65536)
            }
        }

        /// Bytes that are not UTF-8 in a message or PEER argument: exit 65, as on standard
        /// input, and nothing sent (Swift would have sent U+FFFD in their place). A shell
        /// passes the raw byte 0xFF, which no Swift string can hold.
        @Test func argumentsThatAreNotUTF8Exit65AndSendNothing() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                // sh -c 'exec "$@" …' sh BINARY ARGUMENTS…: the raw argument goes last.
                func withRawLast(_ format: String) -> [String] {
                    ["/bin/sh", "-c", #"exec "$@" "$(printf '"# + format + #"')""#, "sh"]
                }
                let runs: [(String, [String], [String])] = [
                    ("message word", ["send", "bob", "hello"], withRawLast(#"w\377rld"#)),
                    ("only word", ["send", "bob"], withRawLast(#"\303\050"#)),
                    ("PEER", ["send"], withRawLast(#"b\377b"#)),
                    // Decoded, the path would name another file (found by QA).
                    ("backup PATH", ["backup"], withRawLast(#"\377.bak"#)),
                ]
                for (what, arguments, launcher) in runs {
                    let result = try await pair.alice.lanchat(arguments, launcher: launcher)
                    #expect(result.status == 65, "\(what): \(result)")
                    #expect(result.output.isEmpty, "\(what): \(result)")
                    #expect(
                        result.standardError.contains("is not valid UTF-8"), "\(what): \(result)")
                }
                // PEER given raw, then a valid text: the PEER is refused.
                let peerFirst = try await pair.alice.lanchat(
                    ["send"],
                    launcher: [
                        "/bin/sh", "-c", #"exec "$@" "$(printf 'b\377b')" hi"#, "sh",
                    ])
                #expect(peerFirst.status == 65, "\(peerFirst)")
                #expect(peerFirst.standardError.contains("PEER"), "\(peerFirst)")
                let history = try await pair.alice.json(HistoryResult.self, ["history", "bob"])
                #expect(history.messages.isEmpty, "nothing may have been stored")
                // A real U+FFFD typed by the user is valid UTF-8 and is sent as it is.
                let sent = try await pair.alice.sendDelivered("w\u{FFFD}rld", to: "bob")
                #expect(sent.text == "w\u{FFFD}rld")
            }
        }

        /// Output that cannot be written (standard output on a full disk, or closed) is an
        /// error, exit 74: a script must not take the missing ids for success. The message
        /// was sent all the same. (Both once exited 0 in silence; with descriptor 1 closed,
        /// the ids went to whatever the process opened next.)
        @Test func outputThatCannotBeWrittenExits74AndTheMessageStillGoes() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                for (what, redirection) in [("a full disk", ">/dev/full"), ("closed", ">&-")] {
                    let text = "output \(what)"
                    let result = try await pair.alice.lanchat(
                        ["send", "bob", text],
                        launcher: ["/bin/sh", "-c", #"exec "$@" "# + redirection, "sh"])
                    #expect(result.status == 74, "\(what): \(result)")
                    #expect(
                        result.standardError.hasPrefix("lanchat: cannot write the output: "),
                        "\(what): \(result)")
                    let arrived = try await poll(timeout: .seconds(5), interval: .milliseconds(10))
                    {
                        try await pair.bob.json(HistoryResult.self, ["history", "alice"]).messages
                            .first { $0.text == text }
                    }
                    #expect(arrived != nil, "\(what): the message must have been sent")
                }
            }
        }

        /// Standard input closed (`<&-`) cannot be read: said so, exit 65, nothing sent (found
        /// by QA: "the message is empty", and `--lines` exited 0 having sent nothing).
        @Test func aClosedStandardInputIsAnErrorNotAnEmptyOne() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                for arguments in [["send", "bob"], ["send", "bob", "--lines"], ["chat", "bob"]] {
                    let result = try await pair.alice.lanchat(
                        arguments, launcher: ["/bin/sh", "-c", #"exec "$@" <&-"#, "sh"])
                    #expect(result.status == 65, "\(arguments): \(result)")
                    #expect(
                        result.standardError.contains("cannot read standard input: it is closed"),
                        "\(arguments): \(result)")
                }
                let history = try await pair.alice.json(HistoryResult.self, ["history", "bob"])
                #expect(history.messages.isEmpty, "nothing may have been sent")
            }
        }

        /// A reader that closes the pipe early (`| head -1`) is no error (lanchat(1)): exit 0,
        /// not death by SIGPIPE (QA: 141 with `--json`, which fails `set -o pipefail`). The
        /// answer is far over a pipe's 64 KiB, so the reader is gone before it is written.
        @Test func aReaderThatClosesThePipeEarlyIsNoError() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let lines = (1...400).map { "line \($0) " + String(repeating: "x", count: 200) }
                let sent = try await pair.alice.lanchat(
                    ["send", "bob", "--lines"], input: Data(lines.joined(separator: "\n").utf8))
                #expect(sent.status == 0, "\(sent)")
                let pipeline = [
                    "/bin/bash", "-c", #"set -o pipefail; "$@" | head -c 1 >/dev/null"#, "bash",
                ]
                for arguments in [
                    ["--json", "history", "bob", "--limit", "1000"],
                    ["history", "bob", "--limit", "1000"],
                ] {
                    let result = try await pair.alice.lanchat(arguments, launcher: pipeline)
                    #expect(result.status == 0, "\(arguments): \(result)")
                    #expect(result.standardError.isEmpty, "\(arguments): \(result)")
                }
            }
        }

        @Test func textOnStandardInputIsSent() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                var ids: [String] = []
                for arguments in [["send", "bob"], ["send", "bob", "-"]] {
                    let text = "from stdin via `\(arguments.joined(separator: " "))`\nsecond line"
                    let result = try await pair.alice.lanchat(
                        arguments, input: Data((text + "\n\n").utf8))
                    #expect(result.status == 0, "\(result)")
                    let id = result.output.trimmingCharacters(in: .newlines)
                    #expect(id.isLowercaseUUID, "\(result)")
                    let received = try await pair.bob.awaitReceived(id, from: "alice")
                    #expect(received?.text == text, "trailing line ends dropped, the rest kept")
                    ids.append(id)
                }
                #expect(Set(ids).count == 2)
            }
        }

        @Test func unknownPeerExits67WithAMessage() async throws {
            try await inSandbox { sandbox in
                let pair = try await DaemonPair.start(in: sandbox)
                let result = try await pair.alice.lanchat(["send", "carol", "hello?"])
                #expect(result.status == 67, "\(result)")
                #expect(result.output.isEmpty, "\(result)")
                #expect(result.standardError.hasPrefix("lanchat: "), "\(result)")
                #expect(result.standardError.contains("carol"), "the message names the peer")
                let history = try await pair.alice.lanchat(["history", "carol"])
                #expect(history.status == 67, "\(history)")
            }
        }

        /// A socket named by --socket is not the user service's, so the hint names that
        /// socket's daemon, not systemctl (which would start another one).
        @Test func noDaemonExits69WithTheHint() async throws {
            try await inSandbox { sandbox in
                let socket = sandbox.file("nobody-listens.sock")
                let hint = "start the lanchatd that serves it (lanchatd --socket \(socket))"
                for command in [["status"], ["send", "bob", "hi"], ["who"]] {
                    let result = try await sandbox.lanchat(["--socket", socket] + command)
                    #expect(result.status == 69, "\(command): \(result)")
                    #expect(result.standardError.contains(hint), "\(command): \(result)")
                    #expect(!result.standardError.contains("systemctl"), "\(command): \(result)")
                }
                // A socket file nobody listens on (a crashed daemon's) says the same.
                let stale = sandbox.file("stale.sock")
                try await Self.leaveStaleSocket(at: stale)
                let result = try await sandbox.lanchat(["--socket", stale, "status"])
                #expect(result.status == 69, "\(result)")
                #expect(result.standardError.contains("(lanchatd --socket \(stale))"), "\(result)")
            }
        }

        @Test func unknownOptionExits64() async throws {
            try await inSandbox { sandbox in
                let daemon = try await DaemonProcess.start("alice", in: sandbox)
                for arguments in [["send", "bob", "hi", "--bogus"], ["--frobnicate", "status"]] {
                    let result = try await daemon.lanchat(arguments)
                    #expect(result.status == 64, "\(arguments): \(result)")
                    #expect(!result.standardError.isEmpty, "\(arguments): \(result)")
                }
                let unknownCommand = try await daemon.lanchat(["teleport"])
                #expect(unknownCommand.status == 64, "\(unknownCommand)")
            }
        }

        /// Binds a Unix socket at `path` and closes it without unlinking: a file that
        /// refuses connections (ECONNREFUSED).
        static func leaveStaleSocket(at path: String) async throws {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw SocketError("socket") }
            defer { close(descriptor) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            guard withSocketAddress(address, { bind(descriptor, $0, $1) }) == 0 else {
                throw SocketError("bind \(path)")
            }
        }
    }
}
