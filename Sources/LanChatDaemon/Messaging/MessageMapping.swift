import LanChatControl
import LanChatStore

/// Store rows → control API shapes.
enum MessageMapping {
    /// `peerID` is the peer's text id when the caller already has it (a page of one
    /// conversation): base32 of the key once per page instead of once per message.
    static func info(
        _ message: StoredMessage, inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?,
        peerID: String? = nil
    ) -> MessageInfo {
        let peer = peerID ?? message.peer.id
        let timestamp = { (value: Int64?) in value.map(Timestamp.init(millisecondsSince1970:)) }
        switch message.direction {
        case .incoming:
            return MessageInfo(
                id: message.id.description, peer: peer, direction: .incoming,
                seq: message.seq, text: message.text,
                createdAt: Timestamp(millisecondsSince1970: message.createdAt),
                receivedAt: timestamp(message.receivedAt), read: message.readAt != nil,
                readAt: timestamp(message.readAt))
        case .outgoing:
            return MessageInfo(
                id: message.id.description, peer: peer, direction: .outgoing,
                seq: message.seq, text: message.text,
                createdAt: Timestamp(millisecondsSince1970: message.createdAt),
                status: status(of: message, inFlight: inFlight), failReason: message.failReason,
                deliveredAt: timestamp(message.deliveredAt), readAt: timestamp(message.readAt))
        }
    }

    static func status(
        of message: StoredMessage, inFlight: (stream: UInt64, seqs: ClosedRange<UInt64>)?
    ) -> MessageStatus {
        switch message.status {
        case .delivered: return .delivered
        case .read: return .read
        case .failed: return .failed
        case .queued, nil:
            if let inFlight, inFlight.stream == message.stream, inFlight.seqs.contains(message.seq)
            {
                return .sent
            }
            return .queued
        }
    }
}
