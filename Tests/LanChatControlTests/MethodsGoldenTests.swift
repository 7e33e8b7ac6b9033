import LanChatControl
import Testing

/// Params and results of every implemented method, as they travel on the socket.
@Suite struct MethodsGoldenTests {
    @Test func methodNamesAreTheCommandNames() {
        #expect(Methods.Status.name == "status")
        #expect(Methods.Who.name == "who")
        #expect(Methods.Send.name == "send")
        #expect(Methods.History.name == "history")
        #expect(Methods.SetPresence.name == "presence")
        #expect(Methods.Retry.name == "retry")
        #expect(Methods.Backup.name == "backup")
        #expect(Methods.Typing.name == "typing")
    }

    @Test func typingParamsAndResult() throws {
        try GoldenJSON.expectRoundTrip(
            TypingParams(peer: "bob", typing: true), #"{"peer":"bob","typing":true}"#)
        try GoldenJSON.expectRoundTrip(TypingResult(sent: false), #"{"sent":false}"#)
    }

    // MARK: Params

    @Test func noParamsIsAnEmptyObject() throws {
        try GoldenJSON.expectRoundTrip(NoParams(), "{}")
    }

    @Test func whoParams() throws {
        try GoldenJSON.expectRoundTrip(
            WhoParams(query: "bo", all: true), #"{"all":true,"query":"bo"}"#)
        try GoldenJSON.expectRoundTrip(WhoParams(), "{}")
        #expect(try GoldenJSON.decode(WhoParams.self, #"{"query":null,"all":null}"#) == WhoParams())
    }

    @Test func sendParamsWithOneText() throws {
        try GoldenJSON.expectRoundTrip(
            SendParams(peer: "bob", text: "build is green"),
            #"{"peer":"bob","text":"build is green"}"#)
    }

    @Test func sendParamsWithTextsAndWaiting() throws {
        try GoldenJSON.expectRoundTrip(
            SendParams(
                peer: "BOBB-2345", texts: ["a", "b"], wait: true, waitRead: false, timeout: 2.5),
            #"{"peer":"BOBB-2345","texts":["a","b"],"timeout":2.5,"wait":true,"waitRead":false}"#)
    }

    @Test func sendParamsAskingForIDsOnly() throws {
        try GoldenJSON.expectRoundTrip(
            SendParams(peer: "bob", texts: ["a", "b"], idsOnly: true),
            #"{"idsOnly":true,"peer":"bob","texts":["a","b"]}"#)
    }

    @Test func sendParamsNeedAPeer() {
        #expect(throws: (any Error).self) {
            try GoldenJSON.decode(SendParams.self, #"{"text":"x"}"#)
        }
    }

    @Test func historyParams() throws {
        try GoldenJSON.expectRoundTrip(
            HistoryParams(peer: "bob", limit: 20, before: "id-1"),
            #"{"before":"id-1","limit":20,"peer":"bob"}"#)
        try GoldenJSON.expectRoundTrip(
            HistoryParams(peer: "bob", after: "id-2"), #"{"after":"id-2","peer":"bob"}"#)
    }

    @Test func historyLimitOfTheWrongTypeIsRejected() {
        #expect(throws: (any Error).self) {
            try GoldenJSON.decode(HistoryParams.self, #"{"peer":"bob","limit":"20"}"#)
        }
    }

    @Test func presenceParams() throws {
        try GoldenJSON.expectRoundTrip(
            PresenceParams(status: .away, text: "lunch"), #"{"status":"away","text":"lunch"}"#)
        try GoldenJSON.expectRoundTrip(
            PresenceParams(status: .available), #"{"status":"available"}"#)
        try GoldenJSON.expectRoundTrip(
            PresenceParams(status: .busy, text: ""), #"{"status":"busy","text":""}"#)
    }

    @Test func retryParams() throws {
        try GoldenJSON.expectRoundTrip(RetryParams(target: "bob"), #"{"target":"bob"}"#)
        try GoldenJSON.expectRoundTrip(RetryParams(), "{}")
    }

    @Test func backupParams() throws {
        try GoldenJSON.expectRoundTrip(
            BackupParams(path: "/home/alice/lanchat-2025.db"),
            #"{"path":"/home/alice/lanchat-2025.db"}"#)
    }

    @Test func backupParamsNeedAPath() {
        #expect(throws: (any Error).self) { try GoldenJSON.decode(BackupParams.self, "{}") }
        #expect(throws: (any Error).self) {
            try GoldenJSON.decode(BackupParams.self, #"{"path":7}"#)
        }
    }

    // MARK: Results

    @Test func statusResult() throws {
        try GoldenJSON.expectRoundTrip(Fixtures.status, Fixtures.statusJSON)
    }

    @Test func whoResult() throws {
        try GoldenJSON.expectRoundTrip(
            WhoResult(peers: [Fixtures.bob, Fixtures.stranger]),
            #"{"identityAlerts":[],"keyChanges":[],"peers":[\#(Fixtures.bobJSON),\#(Fixtures.strangerJSON)]}"#
        )
        try GoldenJSON.expectRoundTrip(
            WhoResult(peers: []), #"{"identityAlerts":[],"keyChanges":[],"peers":[]}"#)
        // An older daemon's answer, without keyChanges or identityAlerts, still decodes.
        #expect(try GoldenJSON.decode(WhoResult.self, #"{"peers":[]}"#) == WhoResult(peers: []))
        let alert = IdentityAlertInfo(
            peer: PeerCandidate(id: "B", keyTag: "BOBB-AAAA", name: "bob", alias: nil),
            address: "127.0.0.1:41000", presentedKeyTag: "EVEE-AAAA", at: Fixtures.t0)
        try GoldenJSON.expectRoundTrip(
            WhoResult(peers: [], identityAlerts: [alert]),
            #"{"identityAlerts":[{"address":"127.0.0.1:41000","at":"2026-11-21T06:29:48.123Z","#
                + #""peer":{"alias":null,"id":"B","keyTag":"BOBB-AAAA","name":"bob"},"#
                + #""presentedKeyTag":"EVEE-AAAA"}],"keyChanges":[],"peers":[]}"#)
    }

    @Test func contactMethodsKeepTheirNamesAndShapes() throws {
        #expect(
            [
                Methods.Contacts.name, Methods.Add.name, Methods.Alias.name, Methods.Verify.name,
                Methods.Block.name, Methods.Unblock.name, Methods.Remove.name, Methods.Accept.name,
            ] == ["contacts", "add", "alias", "verify", "block", "unblock", "remove", "accept"])
        try GoldenJSON.expectRoundTrip(
            AliasParams(peer: "bob", name: "Bobby"), #"{"name":"Bobby","peer":"bob"}"#)
        try GoldenJSON.expectRoundTrip(
            PeerResult(peer: Fixtures.bob), #"{"peer":\#(Fixtures.bobJSON)}"#)
        try GoldenJSON.expectRoundTrip(
            ContactsResult(
                contacts: [Fixtures.bob], blocked: [],
                requests: [
                    ContactRequestInfo(
                        peer: Fixtures.stranger, count: 2, firstMessage: nil,
                        receivedAt: Fixtures.t0)
                ]),
            #"{"blocked":[],"contacts":[\#(Fixtures.bobJSON)],"requests":[{"count":2,"#
                + #""firstMessage":null,"peer":\#(Fixtures.strangerJSON),"#
                + #""receivedAt":"2026-11-21T06:29:48.123Z"}]}"#)
        let change = KeyChangeInfo(
            peer: PeerCandidate(id: "NEW", keyTag: "NEWK-EYAA", name: "bob", alias: nil),
            previous: nil)
        try GoldenJSON.expectRoundTrip(
            WhoResult(peers: [], keyChanges: [change]),
            #"{"identityAlerts":[],"#
                + #""keyChanges":[{"peer":{"alias":null,"id":"NEW","keyTag":"NEWK-EYAA","name":"bob"},"#
                + #""previous":null}],"peers":[]}"#)
    }

    @Test func sendResult() throws {
        try GoldenJSON.expectRoundTrip(
            SendResult(messages: [Fixtures.outgoing]),
            #"{"ids":["0b7f3c9e-3f1a-4c1e-9d55-0d6b1c1f2a10"],"#
                + #""messages":[\#(Fixtures.outgoingJSON)]}"#)
        try GoldenJSON.expectRoundTrip(
            SendResult(ids: ["a", "b"]), #"{"ids":["a","b"]}"#)
    }

    /// A daemon from before `ids` answered with the messages alone: they give the ids.
    @Test func sendResultOfAnOlderDaemon() throws {
        let decoded = try GoldenJSON.decode(
            SendResult.self, #"{"messages":[\#(Fixtures.outgoingJSON)]}"#)
        #expect(decoded == SendResult(messages: [Fixtures.outgoing]))
        #expect(throws: (any Error).self) { try GoldenJSON.decode(SendResult.self, "{}") }
    }

    @Test func historyResult() throws {
        let result = HistoryResult(
            peer: Fixtures.bob, messages: [Fixtures.incoming, Fixtures.outgoing], hasOlder: true,
            hasNewer: true)
        try GoldenJSON.expectRoundTrip(
            result,
            #"{"hasNewer":true,"hasOlder":true,"#
                + #""messages":[\#(Fixtures.incomingJSON),\#(Fixtures.outgoingJSON)],"#
                + #""peer":\#(Fixtures.bobJSON)}"#)
    }

    /// A daemon from before `hasNewer` did not send it: no newer page is offered.
    @Test func historyResultOfAnOlderDaemon() throws {
        let decoded = try GoldenJSON.decode(
            HistoryResult.self,
            #"{"hasOlder":false,"messages":[],"peer":\#(Fixtures.bobJSON)}"#)
        #expect(decoded == HistoryResult(peer: Fixtures.bob, messages: [], hasOlder: false))
    }

    @Test func retryResult() throws {
        try GoldenJSON.expectRoundTrip(
            RetryResult(messages: [Fixtures.failed]), #"{"messages":[\#(Fixtures.failedJSON)]}"#)
    }

    @Test func backupResult() throws {
        try GoldenJSON.expectRoundTrip(
            BackupResult(path: "/tmp/b.db", bytes: 57_344, messages: 120),
            #"{"bytes":57344,"messages":120,"path":"/tmp/b.db"}"#)
    }

    @Test func prettyEncoderSortsKeysAndIndents() throws {
        let data = try ControlJSON.prettyEncoder().encode(WhoParams(query: "a/b", all: false))
        #expect(
            String(decoding: data, as: UTF8.self)
                == "{\n  \"all\" : false,\n  \"query\" : \"a/b\"\n}")
    }
}
