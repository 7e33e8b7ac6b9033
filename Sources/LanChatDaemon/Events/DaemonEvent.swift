import LanChatControl
import LanChatCore
import LanChatStore

/// Something that happened, for whoever listens (`send --wait`, later `watch`). Status changes
/// come in batches, one event per store update, so a burst of ACKs is a handful of events.
enum DaemonEvent: Sendable {
    /// Messages the peer sent, stored or staged and acknowledged
    /// (`MessageStore.storeReceived`); not a message request's.
    case messagesReceived(peer: PeerKey, [IncomingRecord])
    /// Outgoing messages whose status changed; `sent` marks them written to a session.
    case statusChanged(peer: PeerKey, [StoredMessage], sent: Bool)
    /// The peer's ACK covers every message of `stream` up to `upTo`: they are on its disk.
    /// Published as the ACK arrives, before the `delivered` status is written here, so a
    /// waiting `send --wait` answers without one more local fsync.
    case acknowledged(peer: PeerKey, stream: UInt64, upTo: UInt64, at: Int64)
    case presenceChanged(peer: PeerKey, Presence)
    /// TYPING(1/0) from the peer (PROTOCOL.md §9.6), for `TypingIndicator`; never stored.
    case typingReceived(peer: PeerKey, Bool)
}

extension DaemonEvent {
    /// What a subscription names (`EventBus.subscribe(to:)`).
    enum Kind: Sendable, CaseIterable {
        case messagesReceived, statusChanged, acknowledged, presenceChanged, typingReceived
    }

    var kind: Kind {
        switch self {
        case .messagesReceived: .messagesReceived
        case .statusChanged: .statusChanged
        case .acknowledged: .acknowledged
        case .presenceChanged: .presenceChanged
        case .typingReceived: .typingReceived
        }
    }
}
