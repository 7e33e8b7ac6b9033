import Foundation

// The JSON objects `lanchat --json` prints (lanchat-api(7), PRODUCT.md §4), decoded with
// this suite's own types rather than the project's: an end-to-end test reads the output as
// a script would, so a renamed or missing field fails here.

/// `lanchat status --json`.
struct StatusResult: Decodable, Sendable {
    var apiVersion: Int
    var id: String
    var keyTag: String
    var name: String
    var listening: [String]
    var peersOnline: Int
    var unread: Int
    var queued: Int
    var socket: String
    var dataDir: String

    /// The TCP port of the first listener (`[::]:41000` → 41000).
    var port: UInt16? {
        listening.first.flatMap { address in
            address.split(separator: ":").last.flatMap { UInt16($0) }
        }
    }
}

/// A peer object.
struct PeerObject: Decodable, Sendable {
    var id: String
    var keyTag: String
    var name: String
    var presence: String
    var trust: String
    var addresses: [String]
    var status: String?
    var statusText: String?
}

/// `lanchat who --json`.
struct WhoResult: Decodable, Sendable {
    /// A pinned peer whose address answered with another key.
    struct IdentityAlert: Decodable, Sendable {
        struct Peer: Decodable, Sendable { var id: String }
        var peer: Peer
        var address: String
        var presentedKeyTag: String
    }
    var peers: [PeerObject]
    var identityAlerts: [IdentityAlert]?
}

/// A message object.
struct MessageObject: Decodable, Sendable {
    var id: String
    var peer: String
    var direction: String
    var seq: Int
    var text: String
    var status: String?
    var createdAt: String
    var receivedAt: String?
    var deliveredAt: String?
    /// Incoming messages: read by the local user.
    var read: Bool?
}

/// `lanchat send --json` (and `retry --json`).
struct MessagesResult: Decodable, Sendable {
    var messages: [MessageObject]
}

/// `lanchat history PEER --json`.
struct HistoryResult: Decodable, Sendable {
    var messages: [MessageObject]
    var peer: PeerObject
    var hasOlder: Bool
    var hasNewer: Bool
}

/// `lanchat status --json`: what is queued and what is unread.
struct StatusCounts: Decodable, Sendable {
    var queued: Int
    var unread: Int
}

/// `lanchat status --json`: why the last reload kept the running configuration.
struct StatusReload: Decodable, Sendable {
    var reloadError: String?
}

/// RFC 3339 with milliseconds, as the API writes timestamps.
enum APITimestamp {
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

extension String {
    /// A lower-case UUID, as message ids are.
    var isLowercaseUUID: Bool {
        UUID(uuidString: self) != nil && self == lowercased() && count == 36
    }
}
