import LanChatControl

/// Shapes the rendering and command tests share, around a fixed "now":
/// Saturday 2026-11-21 12:00:00 UTC.
enum CLIFixtures {
    static let now = Timestamp(millisecondsSince1970: 1_795_262_400_000)
    static let bobID = String(repeating: "b", count: 52)
    static let carolID = String(repeating: "c", count: 52)

    static func at(_ text: String) -> Timestamp {
        Timestamp(rfc3339: text) ?? Timestamp(millisecondsSince1970: 0)
    }

    static let bob = PeerInfo(
        id: bobID, keyTag: "BOBB-2345", name: "bob@laptop", alias: "Bob", presence: .online,
        status: .away, statusText: "lunch", trust: .verified, contact: true,
        lastSeen: at("2026-11-21T11:59:00Z"),
        addresses: ["192.168.1.20:41000", "[fe80::1%eth0]:41000"])

    static let carol = PeerInfo(
        id: carolID, keyTag: "CARO-L234", name: "carol@desk", presence: .offline,
        statusText: "on holiday\nback monday", lastSeen: at("2026-11-20T09:00:00Z"),
        addresses: ["192.168.1.30:41000"])

    static let dave = PeerInfo(
        id: String(repeating: "d", count: 52), keyTag: "DAVE-2345", name: "dave",
        presence: .discovering, trust: .blocked)

    static let status = StatusResult(
        name: "alice@box", id: String(repeating: "a", count: 52), keyTag: "ALIC-EAAA",
        status: .busy, statusText: "deep work", version: "0.1.0", apiVersion: 1,
        startedAt: at("2026-11-21T09:57:00Z"), uptimeSeconds: 7384.25,
        listening: ["0.0.0.0:41000", "[::]:41000"], avahi: "connecting", peersOnline: 2,
        queued: 3, unread: 4, dataDir: "/home/alice/.local/share/lanchat",
        socket: "/run/user/1000/lanchat/lanchatd.sock")

    static func outgoing(
        _ seq: UInt64, _ text: String, _ status: MessageStatus, at time: String,
        reason: String? = nil
    ) -> MessageInfo {
        MessageInfo(
            id: "00000000-0000-4000-8000-0000000000\(seq < 10 ? "0" : "")\(seq)", peer: bobID,
            direction: .outgoing, seq: seq, text: text, createdAt: at(time), status: status,
            failReason: reason)
    }

    static func incoming(_ seq: UInt64, _ text: String, at time: String) -> MessageInfo {
        MessageInfo(
            id: "10000000-0000-4000-8000-0000000000\(seq < 10 ? "0" : "")\(seq)", peer: bobID,
            direction: .incoming, seq: seq, text: text, createdAt: at(time),
            receivedAt: at(time), read: true)
    }

    static let bobConversation = ConversationInfo(
        peer: bob, unread: 2, lastMessage: incoming(2, "deploy done", at: "2026-11-21T11:55:00Z"),
        archived: false, updatedAt: at("2026-11-21T11:55:00Z"))

    static let carolConversation = ConversationInfo(
        peer: carol, unread: 0,
        lastMessage: MessageInfo(
            id: "00000000-0000-4000-8000-000000000042", peer: carolID, direction: .outgoing,
            seq: 42, text: "see you monday", createdAt: at("2026-11-20T09:00:00Z"),
            status: .delivered),
        archived: false, updatedAt: at("2026-11-20T09:00:00Z"))

    static let unreadFromBob = [
        incoming(1, "is the build green?", at: "2026-11-20T18:00:00Z"),
        incoming(2, "deploy done", at: "2026-11-21T11:55:00Z"),
    ]

    static let searchHits = [
        incoming(7, "Deploy done at the café", at: "2026-11-21T11:30:00Z"),
        outgoing(3, "redeploy tomorrow", .read, at: "2026-11-19T10:00:00Z"),
    ]

    /// Event `n` of the fake daemon's log: cursor `cN`, a message from bob at 12:0N.
    static func event(_ n: Int) -> EventInfo {
        EventInfo(
            cursor: "c\(n)", type: .messageReceived, at: at("2026-11-21T12:0\(n % 10):00Z"),
            message: incoming(UInt64(n), "event \(n)", at: "2026-11-21T12:0\(n % 10):00Z"),
            peer: bob)
    }
}
