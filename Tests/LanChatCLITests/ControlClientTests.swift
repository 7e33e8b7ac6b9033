import Dispatch
import FoundationEssentials
import LanChatClient
import LanChatControl
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ControlClient` against a real Unix-socket server with canned answers.
@Suite(.timeLimit(.minutes(1))) struct ControlClientTests {
    static let status = StatusResult(
        name: "alice", id: String(repeating: "a", count: 52), keyTag: "AAAA-AAAA",
        status: .available, statusText: "", version: "0.1.0", apiVersion: 1,
        startedAt: Timestamp(millisecondsSince1970: 0), uptimeSeconds: 1, listening: [],
        avahi: "running", peersOnline: 0, queued: 0, unread: 0, dataDir: "/d", socket: "/s")

    /// Calls `status` and returns the error it fails with.
    func statusError(_ client: ControlClient) async -> ControlError? {
        do {
            _ = try await client.call(Methods.Status.self, NoParams())
            return nil
        } catch {
            return error
        }
    }

    @Test func answersAreDecodedIntoTheResultType() async throws {
        let server = try CannedServer.replying { Reply.result($0, Self.status) }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        let result = try await client.call(Methods.Status.self, NoParams())
        #expect(result == Self.status)
    }

    @Test func missingSocketMeansNotRunningWithTheHint() async throws {
        let directory = try TemporaryDirectory.make()
        defer { rmdir(directory) }
        let path = directory + "/absent.sock"
        let error = try #require(await statusError(ControlClient(socketPath: path)))
        #expect(error.exitCode == 69)
        #expect(error.message.contains(path))
        #expect(error.message.contains("start it with: systemctl --user start lanchatd"))
    }

    @Test func staleSocketFileMeansNotRunning() async throws {
        let directory = try TemporaryDirectory.make()
        let path = directory + "/stale.sock"
        let fd = try UnixListener.bound(path: path)  // bound, never listening: ECONNREFUSED
        defer {
            close(fd)
            unlink(path)
            rmdir(directory)
        }
        let error = try #require(await statusError(ControlClient(socketPath: path)))
        #expect(error.exitCode == 69)
        #expect(error.message.contains("systemctl --user start lanchatd"))
    }

    /// Only observable without root: root ignores the socket file's permissions. The errno
    /// mapping itself is tested in `ConnectErrorMappingTests` for every user.
    @Test(.enabled(if: getuid() != 0, "root is never refused by file permissions"))
    func unwritableSocketMeansPermissionDenied() async throws {
        let server = try CannedServer.replying { Reply.result($0, Self.status) }
        defer { server.stop() }
        chmod(server.path, 0o000)
        let error = try #require(await statusError(ControlClient(socketPath: server.path)))
        #expect(error.exitCode == 77)
    }

    /// As root, the refusal is shown by running the built `lanchat` as `nobody` against a
    /// root-owned socket in a 0700 directory.
    @Test(
        .enabled(
            if: getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0,
            "needs root and setpriv to run lanchat as another user"))
    func anotherUsersSocketExits77() async throws {
        let server = try CannedServer.replying { Reply.result($0, Self.status) }
        defer { server.stop() }
        let lanchat = try #require(LinkageTests.builtBinaryPath("lanchat"))
        let outcome = try #require(
            await ChildProcess.run([
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", lanchat,
                "--socket", server.path, "status",
            ]))
        #expect(outcome.status == 77)
        #expect(outcome.standardError.hasPrefix("lanchat: permission denied on the control socket"))
        #expect(server.connectionCount == 0)
    }

    /// A socket another user serves, where we may connect (a squatted /tmp/lanchat-UID): it
    /// is refused with 77 before a byte is sent, naming whose it is (found in review).
    @Test(
        .enabled(
            if: getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0,
            "needs root and setpriv to run lanchat as another user"))
    func aSocketServedByAnotherUserIsNeverTalkedTo() async throws {
        let server = try CannedServer.replying { Reply.result($0, Self.status) }
        defer { server.stop() }
        let directory = String(server.path.dropLast("/d.sock".count))
        #expect(chmod(directory, 0o755) == 0 && chmod(server.path, 0o777) == 0)
        let lanchat = try #require(LinkageTests.builtBinaryPath("lanchat"))
        let outcome = try #require(
            await ChildProcess.run([
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", lanchat,
                "--socket", server.path, "send", "bob", "a secret",
            ]))
        #expect(outcome.status == 77, "\(outcome.standardError)")
        #expect(
            outcome.standardError.contains("is served by uid 0, not by you (uid 65534)"),
            "\(outcome.standardError)")
        #expect(server.connectionCount == 1)
        var requests = server.requests.makeAsyncIterator()
        server.stop()
        #expect(await requests.next() == nil, "a request reached another user's socket")
    }

    @Test func rpcErrorComesBackAsTheMatchingControlError() async throws {
        let candidates = [
            PeerCandidate(id: "id1", keyTag: "BOBB-0001", name: "bob", alias: nil),
            PeerCandidate(id: "id2", keyTag: "BOBB-0002", name: "bobby", alias: "B"),
        ]
        let server = try CannedServer.replying {
            Reply.error($0, .peerAmbiguous("bo", candidates: candidates))
        }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        await #expect(throws: ControlError.peerAmbiguous("bo", candidates: candidates)) {
            try await client.call(Methods.Send.self, SendParams(peer: "bo", text: "hi"))
        }
    }

    @Test func unknownErrorCodeBecomesInternalError() async throws {
        let server = try CannedServer.replying { request in
            #"{"jsonrpc":"2.0","id":\#(Self.idText(request)),"apiVersion":1,"error":{"code":-31000,"message":"from the future"}}"#
        }
        defer { server.stop() }
        let error = try #require(await statusError(ControlClient(socketPath: server.path)))
        #expect(error.exitCode == 70)
        #expect(error.message == "from the future")
    }

    @Test func sequentialCallsShareOneConnectionWithIncreasingIDs() async throws {
        let server = try CannedServer.replying { Reply.result($0, Self.status) }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        var seen: [RPCID?] = []
        var requests = server.requests.makeAsyncIterator()
        for _ in 0..<3 {
            _ = try await client.call(Methods.Status.self, NoParams())
            let line = try #require(await requests.next())
            seen.append(Request(line: line).id)
        }
        #expect(seen == [.number(1), .number(2), .number(3)])
        #expect(server.connectionCount == 1)
    }

    /// Three calls in flight at once; the server reads all three before answering any, then
    /// answers in reverse order. Each call must get its own answer.
    @Test func pipelinedCallsAreMatchedByID() async throws {
        let server = try CannedServer { connection in
            var pending: [Request] = []
            for _ in 0..<3 {
                guard let line = connection.readLine() else { return }
                pending.append(Request(line: line))
            }
            for request in pending.reversed() {
                let query = (try? request.params(WhoParams.self))??.query ?? ""
                let peer = PeerInfo(id: query, keyTag: "KKKK-KKKK", name: query, presence: .online)
                connection.write(Reply.result(request, WhoResult(peers: [peer])) + "\n")
            }
        }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        try await withThrowingTaskGroup(of: (String, String).self) { group in
            for query in ["a", "b", "c"] {
                group.addTask {
                    let result = try await client.call(Methods.Who.self, WhoParams(query: query))
                    return (query, result.peers.first?.name ?? "")
                }
            }
            for try await (query, answeredName) in group {
                #expect(query == answeredName)
            }
        }
        #expect(server.connectionCount == 1)
    }

    /// Lines far larger than the socket's buffer, several in flight: a line is written on the
    /// calling thread until the socket is full, the rest of it and the lines after it on the
    /// client's write queue. The server, reading slowly, must get every line whole, never
    /// interleaved with another (each answer carries the length of the query it read).
    @Test func linesLargerThanTheSocketBufferArriveWhole() async throws {
        let sizes = [1 << 20, 1, 1 << 20, 5]
        let server = try CannedServer { connection in
            for _ in sizes {
                guard let line = connection.readLine() else { return }
                let request = Request(line: line)
                let query = (try? request.params(WhoParams.self))??.query ?? ""
                let peer = PeerInfo(
                    id: "\(query.count)", keyTag: "KKKK-KKKK", name: "n", presence: .online)
                connection.write(Reply.result(request, WhoResult(peers: [peer])) + "\n")
                usleep(20_000)  // a slow reader: the socket fills up behind it
            }
        }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, size) in sizes.enumerated() {
                group.addTask {
                    let query = String(repeating: "q", count: size)
                    let result = try await client.call(Methods.Who.self, WhoParams(query: query))
                    return (index, result.peers.first?.id ?? "")
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }
        #expect(sizes.indices.map { answers[$0] } == sizes.map { "\($0)" })
        #expect(server.connectionCount == 1)
    }

    @Test func truncatedResponseIsAnInternalError() async throws {
        let server = try CannedServer { connection in
            _ = connection.readLine()
            connection.write(#"{"jsonrpc":"2.0","id":1,"apiVersion":1,"result":{"na"#)
        }
        defer { server.stop() }
        let error = try #require(await statusError(ControlClient(socketPath: server.path)))
        #expect(error.exitCode == 70)
        #expect(error.message.contains("middle of a response"))
    }

    @Test func malformedLineIsAnInternalError() async throws {
        let server = try CannedServer.replying { _ in "this is not json" }
        defer { server.stop() }
        let error = try #require(await statusError(ControlClient(socketPath: server.path)))
        #expect(error.exitCode == 70)
        #expect(error.message.contains("malformed"))
    }

    @Test func resultOfTheWrongShapeIsAnInternalError() async throws {
        let server = try CannedServer.replying { Reply.result($0, WhoResult(peers: [])) }
        defer { server.stop() }
        let error = try #require(await statusError(ControlClient(socketPath: server.path)))
        #expect(error.exitCode == 70)
        #expect(error.message.contains("missing"))
    }

    @Test func responseOver16MiBIsRefused() async throws {
        let server = try CannedServer { connection in
            _ = connection.readLine()
            let prefix = Array(#"{"jsonrpc":"2.0","id":1,"result":{"name":""#.utf8)
            connection.write(prefix + [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 20) + [10])
        }
        defer { server.stop() }
        let error = try #require(await statusError(ControlClient(socketPath: server.path)))
        #expect(error.exitCode == 70)
        #expect(error.message.contains("16 MiB"))
    }

    /// A `send` lost with its connection may be stored: exit 75, saying where to look before
    /// sending again (found by QA: a daemon killed during `send --wait` gave 69).
    @Test func aSendLostWithItsConnectionSaysItMayBeStored() async throws {
        let server = try CannedServer { connection in _ = connection.readLine() }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        do {
            _ = try await client.send(SendParams(peer: "bob", text: "hi"))
            Issue.record("answered")
        } catch {
            #expect(error.exitCode == 75)
            #expect(error.message.contains("may still be stored"), "\(error)")
        }
    }

    @Test func daemonClosingWithoutAnswerIsUnavailableAndTheNextCallReconnects() async throws {
        let server = try CannedServer { connection in
            guard let line = connection.readLine() else { return }
            let request = Request(line: line)
            // The first connection is dropped unanswered (a daemon stopping); later ones work.
            if request.id == .number(1) { return }
            connection.write(Reply.result(request, Self.status) + "\n")
        }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        let error = try #require(await statusError(client))
        // Found by QA: it said 69, "not running", which a script takes as "nothing was
        // done, send again"; a call the daemon may have carried out is 75.
        #expect(error.exitCode == 75, "\(error)")
        #expect(error.message.contains("closed the connection before answering"))
        let result = try await client.call(Methods.Status.self, NoParams())
        #expect(result == Self.status)
        #expect(server.connectionCount == 2)
    }

    @Test func cancellingAWaitingCallEndsIt() async throws {
        let server = try CannedServer { connection in
            while connection.readLine() != nil {}  // reads, never answers
        }
        defer { server.stop() }
        let client = ControlClient(socketPath: server.path)
        var requests = server.requests.makeAsyncIterator()
        let call = Task { await statusError(client) }
        _ = await requests.next()  // the request reached the daemon: the call is waiting
        call.cancel()
        let error = try #require(await call.value)
        #expect(error.message.contains("cancelled"))
    }

    static func idText(_ request: Request) -> String {
        switch request.id {
        case .number(let number): "\(number)"
        case .string(let string): "\"\(string)\""
        case .decimal(let decimal): "\(decimal)"
        case nil: "null"
        }
    }
}
