import LanChatControl
import LanChatCore
import LanChatStore

/// Something that happened, for whoever listens (`send --wait`, later `watch`). Status changes
/// come in batches, one event per store update, so a burst of ACKs is a handful of events.
enum DaemonEvent: Sendable {
    case messagesReceived(peer: PeerKey, [StoredMessage])
    /// Outgoing messages whose status changed; `sent` marks them written to a session.
    case statusChanged(peer: PeerKey, [StoredMessage], sent: Bool)
    case presenceChanged(peer: PeerKey, Presence)
}
