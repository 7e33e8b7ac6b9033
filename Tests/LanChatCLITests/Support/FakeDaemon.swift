import LanChatControl

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

    static func start() throws -> CannedServer {
        let counter = Counter()
        return try CannedServer.replying { request in
            answer(request, counter: counter)
        }
    }

    static func answer(_ request: Request, counter: Counter) -> String {
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
        default:
            return Reply.error(request, .methodNotFound(request.method))
        }
    }
}
