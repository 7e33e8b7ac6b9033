import FoundationEssentials
import LanChatControl
import Synchronization

/// A canned lanchatd for whole-command tests: answers each implemented method with the
/// fixtures, numbering stored messages per connection.
enum FakeDaemon {
    static let ambiguous = ControlError.peerAmbiguous(
        "bo",
        candidates: [
            PeerCandidate(
                id: CLIFixtures.bobID, keyTag: "BOBB-2345", name: "bob@laptop", alias: "Bob"),
            PeerCandidate(id: CLIFixtures.carolID, keyTag: "CARO-L234", name: "bobby", alias: nil),
        ])

    /// `watch` requests are served by `watch`, one step per connection; every other
    /// request gets its canned answer.
    static func start(watch: WatchPlan = WatchPlan()) throws -> CannedServer {
        let counter = Counter()
        let archive = FakeArchive()
        return try CannedServer { connection in
            while let line = connection.readLine() {
                let request = Request(line: line)
                if request.method == Methods.Watch.name {
                    watch.serve(request, on: connection)
                    return
                }
                connection.write(answer(request, counter: counter, archive: archive) + "\n")
            }
        }
    }

    static func answer(_ request: Request, counter: Counter, archive: FakeArchive) -> String {
        switch request.method {
        case Methods.Status.name:
            return Reply.result(request, CLIFixtures.status)
        case Methods.Who.name:
            return Reply.result(request, WhoResult(peers: [CLIFixtures.bob]))
        case Methods.Send.name:
            guard let params = try? request.params(SendParams.self) else {
                return Reply.error(request, .invalidParams("bad send params"))
            }
            if params.peer == "bo" { return Reply.error(request, ambiguous) }
            let messages = (params.texts ?? params.text.map { [$0] } ?? []).map { text in
                let seq = UInt64(counter.increment())
                return CLIFixtures.outgoing(seq, text, .queued, at: "2026-11-21T11:59:00Z")
            }
            if params.wait == true {
                return Reply.error(
                    request,
                    .timedOut(
                        "not delivered within 1 s; still queued", messageIDs: messages.map(\.id)))
            }
            return Reply.result(request, SendResult(messages: messages))
        case Methods.History.name:
            if (try? request.params(HistoryParams.self))?.peer == "nobody" {
                return Reply.error(request, .peerNotFound("nobody"))
            }
            let messages = [CLIFixtures.incoming(1, "hello", at: "2026-11-21T11:00:00Z")]
            return Reply.result(
                request, HistoryResult(peer: CLIFixtures.bob, messages: messages, hasOlder: false))
        case Methods.SetPresence.name:
            guard let params = try? request.params(PresenceParams.self) else {
                return Reply.error(request, .invalidParams("bad presence params"))
            }
            var status = CLIFixtures.status
            status.status = params.status
            status.statusText = params.text ?? status.statusText
            return Reply.result(request, status)
        case Methods.Retry.name:
            return Reply.result(request, RetryResult(messages: []))
        case Methods.Backup.name:
            guard let params = try? request.params(BackupParams.self) else {
                return Reply.error(request, .invalidParams("bad backup params"))
            }
            return Reply.result(request, BackupResult(path: params.path, bytes: 4096, messages: 2))
        case Methods.Inbox.name, Methods.Read.name, Methods.Archive.name, Methods.Unarchive.name,
            Methods.Search.name:
            return answerReading(request, archive: archive)
        case Methods.Groups.name:
            let ops = GroupInfo(
                id: String(repeating: "0a", count: 16), name: "ops", members: [CLIFixtures.bob],
                version: 1)
            return Reply.result(request, GroupsResult(groups: [ops]))
        default:
            return Reply.error(request, .methodNotFound(request.method))
        }
    }
}

extension FakeDaemon {
    /// The reading methods: bob has two unread messages, carol none; "nobody" is unknown.
    static func answerReading(_ request: Request, archive: FakeArchive) -> String {
        switch request.method {
        case Methods.Inbox.name:
            guard let params = try? request.params(InboxParams.self) else {
                return Reply.error(request, .invalidParams("bad inbox params"))
            }
            var archivedBob = CLIFixtures.bobConversation
            archivedBob.archived = true
            let conversations =
                params.archived == true
                ? (archive.contains("bob") ? [archivedBob] : [])
                : [CLIFixtures.bobConversation, CLIFixtures.carolConversation]
            return Reply.result(request, InboxResult(conversations: conversations))
        case Methods.Read.name:
            guard let params = try? request.params(ReadParams.self) else {
                return Reply.error(request, .invalidParams("bad read params"))
            }
            switch params.peer {
            case "nobody": return Reply.error(request, .peerNotFound("nobody"))
            case "carol", "ops", "#ops": return Reply.result(request, ReadResult(messages: []))
            default: return Reply.result(request, ReadResult(messages: CLIFixtures.unreadFromBob))
            }
        case Methods.Archive.name, Methods.Unarchive.name:
            guard let params = try? request.params(ArchiveParams.self) else {
                return Reply.error(request, .invalidParams("bad archive params"))
            }
            if params.peer == "nobody" { return Reply.error(request, .peerNotFound("nobody")) }
            var conversation = CLIFixtures.bobConversation
            conversation.archived = request.method == Methods.Archive.name
            let changed = archive.set(params.peer, archived: conversation.archived)
            return Reply.result(
                request, ArchiveResult(conversation: conversation, changed: changed))
        default:
            guard let params = try? request.params(SearchParams.self) else {
                return Reply.error(request, .invalidParams("bad search params"))
            }
            if params.text.filter({ $0 == "\"" }).count % 2 == 1 {
                return Reply.error(request, .badInput("unterminated phrase in the query"))
            }
            if params.text == "nothing" { return Reply.result(request, SearchResult(messages: [])) }
            return Reply.result(request, SearchResult(messages: CLIFixtures.searchHits))
        }
    }
}

/// What the fake daemon does on each `watch` connection, in order: answer (or refuse),
/// write some events, then close, hold the stream open until the client closes it, or end
/// it with `watchOverflow`. Records the `since` of every watch request.
final class WatchPlan: Sendable {
    enum Ending: Sendable {
        case close
        case hold
        case overflow(lastCursor: String)
    }

    struct Step: Sendable {
        var refusal: ControlError?
        var events: [EventInfo] = []
        var ending: Ending = .hold
        /// What the answer says the watch follows (the id a name resolved to).
        var followed: String?
    }

    private let state: Mutex<(steps: [Step], sinces: [String?], peers: [String?])>

    init(_ steps: [Step] = []) {
        state = Mutex((steps: steps, sinces: [], peers: []))
    }

    /// The `since` param of each watch request served so far.
    var sinces: [String?] { state.withLock { $0.sinces } }
    /// The `peer` param of each watch request served so far.
    var peers: [String?] { state.withLock { $0.peers } }

    func serve(_ request: Request, on connection: ServerConnection) {
        let params = (try? request.params(WatchParams.self)) ?? nil
        let step = state.withLock { state in
            state.sinces.append(params?.since)
            state.peers.append(params?.peer)
            return state.steps.isEmpty ? Step() : state.steps.removeFirst()
        }
        if let refusal = step.refusal {
            connection.write(Reply.error(request, refusal) + "\n")
            return
        }
        connection.write(
            Reply.result(
                request, WatchResult(cursor: "c0", oldestCursor: "c0", followed: step.followed))
                + "\n")
        for event in step.events {
            connection.write(Self.notification(event) + "\n")
        }
        switch step.ending {
        case .close:
            return
        case .hold:
            while connection.readLine() != nil {}
        case .overflow(let lastCursor):
            connection.write(
                Reply.error(request, .watchOverflow("too slow", lastCursor: lastCursor)) + "\n")
        }
    }

    /// An `event` notification line as the daemon writes it.
    static func notification(_ event: EventInfo) -> String {
        struct Notification: Encodable {
            var jsonrpc = "2.0"
            var method = Methods.Watch.notification
            var params: EventInfo
        }
        let data = (try? ControlJSON.encoder().encode(Notification(params: event))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Which PEER arguments the fake daemon has archived (per server), so that `inbox
/// --archived` before an `archive` or `unarchive` tells what it changes.
final class FakeArchive: Sendable {
    private let peers = Mutex<Set<String>>([])

    func contains(_ peer: String) -> Bool { peers.withLock { $0.contains(peer) } }

    /// Whether it changed anything, as the daemon's `changed`.
    func set(_ peer: String, archived: Bool) -> Bool {
        peers.withLock { peers in
            archived ? peers.insert(peer).inserted : peers.remove(peer) != nil
        }
    }
}
