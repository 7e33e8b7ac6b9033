import Foundation
import GRDB
import LanChatCore

/// The stored status of an outgoing message. `sent` is not here: it is derived from the live
/// session by the daemon, so that it falls back to `queued` when the session closes.
public enum StoredStatus: Int64, Sendable, Equatable {
    case queued = 0
    /// Only in the event log (`logSent`): a message's row never holds it, since `sent` lasts
    /// only as long as its session (PROTOCOL.md §9.5).
    case sent = 1
    case delivered = 2
    case read = 3
    case failed = 4
}

public enum StoredDirection: Int64, Sendable, Equatable {
    case incoming = 0
    case outgoing = 1
}

/// One row of `messages`.
public struct StoredMessage: Sendable, Equatable {
    /// Local insertion order: history pages by it.
    public var rowID: Int64
    public var id: MessageID
    public var peer: PeerKey
    public var direction: StoredDirection
    public var stream: UInt64
    public var seq: UInt64
    public var text: String
    /// Outgoing: when it was stored; incoming: the sender's `sent_at`.
    public var createdAt: Int64
    /// Incoming: when it was stored here.
    public var receivedAt: Int64?
    /// Incoming: when the local user read it; outgoing: when the peer said it was read.
    public var readAt: Int64?
    /// Outgoing only.
    public var status: StoredStatus?
    public var failReason: String?
    public var deliveredAt: Int64?
    /// A group message's group (schema v6); nil for a direct message.
    public var group: GroupID?

    /// Every query that builds `StoredMessage`s selects exactly these, in this order, so
    /// rows are decoded by position: by-name lookup folds the case of the name on every
    /// access, and rows are decoded on the hot paths (outbox, ACKs, history).
    static let columns =
        "rowid, uuid, pk, direction, stream, seq, text, created_at, received_at, read_at, status, fail_reason, delivered_at"

    /// `columns` and the group (schema v6): for the queries that need it (the outbox, group
    /// history). Kept out of `columns`, which the upgrade tests run against older schemas.
    static let columnsWithGroup = columns + ", group_id"

    /// `columns` of the table aliased `alias`, for joins.
    static func columns(of alias: String) -> String {
        columns.split(separator: ", ").map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    public init(
        rowID: Int64, id: MessageID, peer: PeerKey, direction: StoredDirection, stream: UInt64,
        seq: UInt64, text: String, createdAt: Int64, receivedAt: Int64? = nil,
        readAt: Int64? = nil, status: StoredStatus? = nil, failReason: String? = nil,
        deliveredAt: Int64? = nil, group: GroupID? = nil
    ) {
        self.group = group
        self.rowID = rowID
        self.id = id
        self.peer = peer
        self.direction = direction
        self.stream = stream
        self.seq = seq
        self.text = text
        self.createdAt = createdAt
        self.receivedAt = receivedAt
        self.readAt = readAt
        self.status = status
        self.failReason = failReason
        self.deliveredAt = deliveredAt
    }
}

public enum StoredTrust: String, Sendable, Equatable {
    case unverified, verified, blocked
}

/// One row of `peers` (the pin store, PROTOCOL.md §5) with its known addresses.
public struct PeerRecord: Sendable, Equatable {
    public var key: PeerKey
    public var keyTag: String
    public var name: String
    public var alias: String?
    public var trust: StoredTrust
    public var contact: Bool
    /// `available`, `away` or `busy`, as last announced by the peer.
    public var status: String
    public var statusText: String
    public var firstSeen: Int64
    public var lastSeen: Int64?
    /// Most recently seen first.
    public var addresses: [Endpoint]
    /// When its first message arrived as a message request (`--accept contacts`, schema v4);
    /// nil when none is pending. Its messages stay out of the inbox and the unread count.
    public var requestSince: Int64?
    /// The earlier key that used this peer's name when this key appeared (PROTOCOL.md §3.8
    /// row 7, schema v4): shown as a warning until this key is verified, blocked or removed.
    public var keyChangedFrom: PeerKey?
    /// The earlier key of a warning the user settled (schema v10): this key may still take
    /// its conversation over (`linkKey`), and the same clash is not raised again.
    public var keyChangeSettled: PeerKey?
    /// The newer key that took this key's conversation over (schema v11): this key is retired.
    public var replacedBy: PeerKey?

    public init(
        key: PeerKey, keyTag: String, name: String, alias: String? = nil,
        trust: StoredTrust = .unverified, contact: Bool = false, status: String = "available",
        statusText: String = "", firstSeen: Int64, lastSeen: Int64? = nil,
        addresses: [Endpoint] = [], requestSince: Int64? = nil, keyChangedFrom: PeerKey? = nil,
        keyChangeSettled: PeerKey? = nil, replacedBy: PeerKey? = nil
    ) {
        self.key = key
        self.keyTag = keyTag
        self.name = name
        self.alias = alias
        self.trust = trust
        self.contact = contact
        self.status = status
        self.statusText = statusText
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.addresses = addresses
        self.requestSince = requestSince
        self.keyChangedFrom = keyChangedFrom
        self.keyChangeSettled = keyChangeSettled
        self.replacedBy = replacedBy
    }

    public var hasPendingRequest: Bool { requestSince != nil }

    /// A pending key-change warning is settled (verify, block, remove): as
    /// `MessageStore.settleKeyChange` writes it.
    public mutating func settleKeyChange() {
        keyChangeSettled = keyChangedFrom ?? keyChangeSettled
        keyChangedFrom = nil
    }

    /// What `remove` takes away (`MessageStore.forget`), and a link from the earlier key:
    /// alias, contact status, a pending request and verification (a block stays).
    public mutating func dropStanding() {
        alias = nil
        contact = false
        requestSince = nil
        if trust == .verified { trust = .unverified }
    }

    /// The earlier key of a link, as `MessageStore.linkKey` leaves its row: retired, with
    /// no alias, contact status, request or verification left.
    public mutating func retire(replacedBy key: PeerKey) {
        dropStanding()
        keyChangedFrom = nil
        replacedBy = key
    }

    /// The new key of a link, as `MessageStore.linkKey` leaves its row; `earlier` is the
    /// earlier key's record as it was before the link.
    public mutating func takeOver(_ earlier: PeerRecord, alias: String?, verified: Bool) {
        self.alias = alias
        contact = contact || earlier.contact
        requestSince =
            contact
            ? nil : [requestSince, earlier.requestSince].compactMap { $0 }.min()
        keyChangedFrom = nil
        keyChangeSettled = earlier.key
        trust = verified || trust == .verified ? .verified : .unverified
    }

    init(row: Row, addresses: [Endpoint]) throws(StoreError) {
        let pk: Data = row["pk"]
        guard let key = PeerKey(bytes: pk), let trust = StoredTrust(rawValue: row["trust"]) else {
            throw StoreError(.corrupt, "a peer row has an invalid key or trust value")
        }
        self.init(
            key: key, keyTag: row["key_tag"], name: row["name"], alias: row["alias"], trust: trust,
            contact: row["contact"], status: row["status"], statusText: row["status_text"],
            firstSeen: row["first_seen"], lastSeen: row["last_seen"], addresses: addresses,
            requestSince: row["request_since"],
            keyChangedFrom: (row["key_changed_from"] as Data?).flatMap { PeerKey(bytes: $0) },
            keyChangeSettled: (row["key_change_settled"] as Data?).flatMap { PeerKey(bytes: $0) },
            replacedBy: (row["replaced_by"] as Data?).flatMap { PeerKey(bytes: $0) })
    }
}

/// Our outgoing stream to one peer.
public struct OutgoingStreamState: Sendable, Equatable {
    public var stream: UInt64
    /// The next seq to assign; `nextSeq − 1` is the highest assigned.
    public var nextSeq: UInt64
    /// The lowest seq not yet delivered, read or failed (nil: none pending).
    public var firstUndelivered: UInt64?

    public init(stream: UInt64, nextSeq: UInt64, firstUndelivered: UInt64?) {
        self.stream = stream
        self.nextSeq = nextSeq
        self.firstUndelivered = firstUndelivered
    }
}

/// One step of a stream's ACKs: every queued seq up to `upTo` (above the step before it, when
/// several are written together) was acknowledged at `at`.
public struct DeliveryStep: Sendable, Equatable {
    public var upTo: UInt64
    public var at: Int64

    public init(upTo: UInt64, at: Int64) {
        self.upTo = upTo
        self.at = at
    }
}

/// An incoming message ready to be stored with its cursor.
public struct IncomingRecord: Sendable, Equatable {
    public var message: WireMessage
    public var text: String

    public init(message: WireMessage, text: String) {
        self.message = message
        self.text = text
    }
}
