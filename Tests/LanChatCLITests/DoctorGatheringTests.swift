import LanChatControl
import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The impure half of `lanchat doctor` on this machine's real processes and sockets: tools
/// are bounded and their output kept, a port probe tells a listener from nothing, the socket
/// facts come from stat, and the whole command runs without a daemon.
@Suite(.timeLimit(.minutes(1))) struct DoctorGatheringTests {
    @Test func aToolsOutputAndStatusAreKept() async {
        let run = await ToolRunner.run("sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(
            run == .ran(ToolOutput(status: 3, standardOutput: "out\n", standardError: "err\n")))
    }

    @Test func aToolThatHangsIsKilledAtTheLimitWithWhatItPrinted() async {
        let started = monotonicMilliseconds()
        let run = await ToolRunner.run(
            "sh", ["-c", "echo early; exec sleep 30"], timeoutMilliseconds: 300)
        let elapsed = monotonicMilliseconds() - started
        guard case .ran(let output) = run else {
            Issue.record("sh did not run: \(run)")
            return
        }
        #expect(output.timedOut)
        #expect(output.standardOutput == "early\n")
        #expect(elapsed < 5000, "took \(elapsed) ms")
    }

    @Test func aMissingToolIsNamed() async {
        #expect(
            await ToolRunner.run("lanchat-no-such-tool", []) == .missing("lanchat-no-such-tool"))
    }

    /// A TCP socket bound to an ephemeral loopback port, listening or not, and its port.
    /// Close-on-exec, so a tool another test spawns meanwhile does not hold it.
    func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && (!listening || listen(fd, 4) == 0)
                    && getsockname(fd, pointer, &length) == 0
            }
        }
        try #require(bound)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func aPortProbeTellsAListenerFromNothing() async throws {
        let listener = try loopbackSocket(listening: true)
        defer { close(listener.fd) }
        let open = ListeningAddress.Target(host: "127.0.0.1", port: listener.port)
        #expect(await PortProber.probe(open).failure == nil)
        // Bound but not listening: the port is ours, and connecting to it is refused.
        let idle = try loopbackSocket(listening: false)
        defer { close(idle.fd) }
        let refused = await PortProber.probe(
            ListeningAddress.Target(host: "127.0.0.1", port: idle.port))
        #expect(refused.failure == "connection refused")
        #expect(refused.address == "127.0.0.1:\(idle.port)")
    }

    @Test func socketFactsComeFromStat() throws {
        var template = Array("/tmp/lanchat-doctor-XXXXXX".utf8CString)
        try #require(mkdtemp(&template) != nil)
        let directory = String(
            decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
            as: UTF8.self)
        let path = directory + "/lanchatd.sock"
        defer {
            unlink(path)
            rmdir(directory)
        }
        #expect(DoctorGathering.socketFacts(path) == .missing)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(path: path))
        let bound = address.withSockaddr { pointer, length in bind(fd, pointer, length) == 0 }
        try #require(bound)
        chmod(path, 0o600)
        chmod(directory, 0o755)
        #expect(
            DoctorGathering.socketFacts(path)
                == .present(
                    mode: 0o600, owner: UInt32(getuid()), directoryMode: 0o755,
                    directoryOwner: UInt32(getuid())))
        unlink(path)
        _ = creat(path, 0o600)
        #expect(DoctorGathering.socketFacts(path) == .notASocket)
    }

    /// A directory of `/tmp`, removed with what is in it by the caller.
    func temporaryDirectory() throws -> String {
        var template = Array("/tmp/lanchat-doctor-XXXXXX".utf8CString)
        try #require(mkdtemp(&template) != nil)
        return String(
            decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
            as: UTF8.self)
    }

    /// stat, not lstat (QA: a link to the live socket was "not a socket"); the directory
    /// judged is the socket's own. A directory is told from a file.
    @Test func aLinkIsFollowedAndADirectoryIsNamed() throws {
        let directory = try temporaryDirectory()
        let socketDirectory = directory + "/d"
        let path = socketDirectory + "/lanchatd.sock"
        let link = directory + "/link.sock"
        defer {
            unlink(link)
            unlink(path)
            rmdir(socketDirectory)
            rmdir(directory)
        }
        try #require(mkdir(socketDirectory, 0o700) == 0 && chmod(directory, 0o755) == 0)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        let address = try #require(UnixSocketAddress(path: path))
        try #require(address.withSockaddr { bind(fd, $0, $1) == 0 } && chmod(path, 0o600) == 0)
        try #require(symlink(path, link) == 0)
        #expect(DoctorGathering.symbolicLinkTarget(link) == path)
        #expect(DoctorGathering.symbolicLinkTarget(path) == nil)
        #expect(
            DoctorGathering.socketFacts(link)
                == .present(
                    mode: 0o600, owner: UInt32(getuid()), directoryMode: 0o700,
                    directoryOwner: UInt32(getuid())))
        #expect(DoctorGathering.socketFacts(socketDirectory) == .directory)
    }

    /// The whole command on odd --socket paths: a link to a daemon's socket passes, and
    /// neither a directory nor a missing socket named by --socket gets a systemctl or mv fix.
    @Test func doctorOnALinkADirectoryOrAnotherSocket() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let directory = try temporaryDirectory()
        let link = directory + "/link.sock"
        defer {
            unlink(link)
            rmdir(directory)
        }
        try #require(symlink(server.path, link) == 0)
        func doctor(_ socket: String) async -> String {
            let captured = CapturedOutput()
            _ = await TestEnvironment.run(
                ["doctor", "--color", "never", "--socket", socket], output: captured,
                variables: ["XDG_RUNTIME_DIR": "/nonexistent"])
            return captured.output
        }
        func line(_ name: String, _ output: String) -> String {
            output.split(separator: "\n").first {
                $0.hasPrefix("✓ \(name) ")
                    || $0.hasPrefix(
                        "✗ \(name) ")
            }.map(String.init) ?? ""
        }
        // Judged as the socket it leads to (whose owner is not the test's fixed uid 4242).
        let linked = await doctor(link)
        #expect(line("socket", linked).contains("\(link) → \(server.path) or its"), "\(linked)")
        #expect(!linked.contains("not a socket"), "\(linked)")
        #expect(line("daemon", linked).hasPrefix("✓ daemon "), "\(linked)")
        let named = await doctor(directory)
        let checkOption =
            "— fix: check --socket and LANCHAT_SOCKET: they must name the socket lanchatd "
            + "serves (the user service's is /nonexistent/lanchat/lanchatd.sock)"
        #expect(
            line("socket", named).hasSuffix(
                "is a directory, not the control socket " + checkOption), "\(named)")
        // Not a daemon to start at the path of a directory.
        #expect(line("daemon", named).hasSuffix(checkOption), "\(named)")
        let missing = await doctor(directory + "/none.sock")
        #expect(
            line("daemon", missing).hasSuffix(
                "— fix: start the lanchatd that serves \(directory)/none.sock (lanchatd --socket "
                    + "\(directory)/none.sock); systemctl --user acts on the one at "
                    + "/nonexistent/lanchat/lanchatd.sock"), "\(missing)")
        for output in [named, missing] {
            #expect(!output.contains("systemctl --user start lanchatd "), "\(output)")
            #expect(!output.contains("mv "), "\(output)")
        }
    }

    /// At the default socket (the user service's) the fix is systemctl's.
    @Test func withoutADaemonDoctorExits1AndSaysHowToStartIt() async throws {
        let captured = CapturedOutput()
        let code = await TestEnvironment.run(
            ["doctor", "--color", "never"], socket: "/nonexistent/lanchat/lanchatd.sock",
            output: captured, variables: ["XDG_RUNTIME_DIR": "/nonexistent"])
        #expect(code == 1)
        let daemon = captured.output.split(separator: "\n").first { $0.hasPrefix("✗ daemon ") }
        #expect(
            daemon?.hasSuffix("— fix: systemctl --user start lanchatd") == true,
            "\(captured.output)")
        #expect(captured.output.contains("- version "))
        #expect(captured.error.hasPrefix("lanchat: "))
        #expect(captured.error.contains("daemon"))
    }

    @Test func doctorJSONHasTheDocumentedShape() async throws {
        let server = try FakeDaemon.start()
        defer { server.stop() }
        let captured = CapturedOutput()
        _ = await TestEnvironment.run(["doctor", "--json"], socket: server.path, output: captured)
        let json = try #require(JSONValue.parse(captured.output))
        let checks = json["checks"]?.array ?? []
        #expect(checks.count == DoctorReport.checks.count)
        for check in checks {
            guard case .object(let members) = check else {
                Issue.record("a check is not an object")
                continue
            }
            #expect(Set(members.keys) == ["name", "ok", "skipped", "detail", "fix"])
        }
        let daemon = checks.first { $0["name"]?.string == "daemon" }
        #expect(daemon?["ok"] == .bool(true))
        #expect(daemon?["fix"] == .null)
        guard case .bool = json["ok"] else {
            Issue.record("no top-level ok")
            return
        }
    }
}
