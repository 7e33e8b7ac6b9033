import FoundationEssentials
import LanChatControl
import Testing

/// Golden-JSON helpers: the control API's wire text is the contract, so each shape is checked
/// both ways against the exact text (compact, keys sorted, as `ControlJSON.encoder()` writes
/// it and as the man page shows it).
enum GoldenJSON {
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try ControlJSON.encoder().encode(value), as: UTF8.self)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ text: String) throws -> Value {
        try ControlJSON.decoder().decode(type, from: Data(text.utf8))
    }

    /// Encodes `value` to exactly `golden`, and decodes `golden` back to `value`.
    static func expectRoundTrip<Value: Codable & Equatable>(
        _ value: Value, _ golden: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try encode(value) == golden, sourceLocation: sourceLocation)
        #expect(try decode(Value.self, golden) == value, sourceLocation: sourceLocation)
    }
}

/// Values shared by the golden tests.
enum Fixtures {
    static let aliceID = "aliceaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let bobID = "bobbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    static let t0 = Timestamp(millisecondsSince1970: 1_795_242_588_123)  // 2026-11-21T06:29:48.123Z
    static let t1 = Timestamp(millisecondsSince1970: 1_795_242_589_000)  // 2026-11-21T06:29:49.000Z

    static let bob = PeerInfo(
        id: bobID, keyTag: "BOBB-2345", name: "bob@laptop", alias: "Bob", presence: .online,
        status: .away, statusText: "lunch", trust: .verified, contact: true, lastSeen: t0,
        addresses: ["192.168.1.20:41000", "[fe80::1%eth0]:41000"])
    static let bobJSON =
        #"{"addresses":["192.168.1.20:41000","[fe80::1%eth0]:41000"],"alias":"Bob","contact":true,"#
        + #""id":"\#(bobID)","keyTag":"BOBB-2345","lastSeen":"2026-11-21T06:29:48.123Z","#
        + #""name":"bob@laptop","presence":"online","status":"away","statusText":"lunch","#
        + #""trust":"verified"}"#

    /// A peer seen only through discovery: every optional field null, lists empty.
    static let stranger = PeerInfo(
        id: aliceID, keyTag: "ALIC-EAAA", name: "alice", presence: .discovering)
    static let strangerJSON =
        #"{"addresses":[],"alias":null,"contact":false,"id":"\#(aliceID)","keyTag":"ALIC-EAAA","#
        + #""lastSeen":null,"name":"alice","presence":"discovering","status":"available","#
        + #""statusText":"","trust":"unverified"}"#

    static let outgoing = MessageInfo(
        id: "0b7f3c9e-3f1a-4c1e-9d55-0d6b1c1f2a10", peer: bobID, direction: .outgoing, seq: 7,
        text: "build is green", createdAt: t0, status: .delivered, deliveredAt: t1)
    static let outgoingJSON =
        #"{"createdAt":"2026-11-21T06:29:48.123Z","deliveredAt":"2026-11-21T06:29:49.000Z","#
        + #""direction":"out","failReason":null,"group":null,"#
        + #""id":"0b7f3c9e-3f1a-4c1e-9d55-0d6b1c1f2a10","#
        + #""peer":"\#(bobID)","read":null,"readAt":null,"receivedAt":null,"seq":7,"#
        + #""status":"delivered","text":"build is green"}"#

    static let incoming = MessageInfo(
        id: "5e2d1c4b-0000-4000-8000-000000000001", peer: bobID, direction: .incoming,
        seq: 18_446_744_073_709_551_615, text: "line 1\nline \"2\" \\ é", createdAt: t0,
        receivedAt: t1, read: false)
    static let incomingJSON =
        #"{"createdAt":"2026-11-21T06:29:48.123Z","deliveredAt":null,"direction":"in","#
        + #""failReason":null,"group":null,"id":"5e2d1c4b-0000-4000-8000-000000000001","#
        + #""peer":"\#(bobID)","read":false,"readAt":null,"#
        + #""receivedAt":"2026-11-21T06:29:49.000Z","seq":18446744073709551615,"status":null,"#
        + #""text":"line 1\nline \"2\" \\ é"}"#

    static let failed = MessageInfo(
        id: "9a9a9a9a-0000-4000-8000-000000000002", peer: bobID, direction: .outgoing, seq: 8,
        text: "x", createdAt: t0, status: .failed, failReason: "rejected: too large")
    static let failedJSON =
        #"{"createdAt":"2026-11-21T06:29:48.123Z","deliveredAt":null,"direction":"out","#
        + #""failReason":"rejected: too large","group":null,"#
        + #""id":"9a9a9a9a-0000-4000-8000-000000000002","#
        + #""peer":"\#(bobID)","read":null,"readAt":null,"receivedAt":null,"seq":8,"#
        + #""status":"failed","text":"x"}"#

    static let status = StatusResult(
        name: "alice@box", id: aliceID, keyTag: "ALIC-EAAA", status: .busy,
        statusText: "deep work", version: "0.1.0", apiVersion: 1, startedAt: t0,
        uptimeSeconds: 7384.25, listening: ["0.0.0.0:41000", "[::]:41000"], avahi: "running",
        peersOnline: 2, queued: 3, unread: 4, dataDir: "/home/alice/.local/share/lanchat",
        socket: "/run/user/1000/lanchat/lanchatd.sock")
    static let statusJSON =
        #"{"apiVersion":1,"avahi":"running","dataDir":"/home/alice/.local/share/lanchat","#
        + #""id":"\#(aliceID)","identityAlerts":[],"keyChanges":[],"keyTag":"ALIC-EAAA","listening":["0.0.0.0:41000","[::]:41000"],"#
        + #""name":"alice@box","peersOnline":2,"queued":3,"reloadError":null,"#
        + #""socket":"/run/user/1000/lanchat/lanchatd.sock","startedAt":"2026-11-21T06:29:48.123Z","#
        + #""status":"busy","statusText":"deep work","unread":4,"uptimeSeconds":7384.25,"#
        + #""version":"0.1.0"}"#
}
