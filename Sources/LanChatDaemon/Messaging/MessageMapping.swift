import LanChatControl
import LanChatStore

/// Store rows → control API shapes.
enum MessageMapping {
    /// `peerID` is the peer's text id when the caller already has it (a page of one
    /// conversation): base32 of the key once per page instead of once per message.
    static func info(
        _ message: StoredMessage, live: LiveOutgoingState, peerID: String? = nil
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
            var info = MessageInfo(
                id: message.id.description, peer: peer, direction: .outgoing,
                seq: message.seq, text: message.text,
                createdAt: Timestamp(millisecondsSince1970: message.createdAt),
                status: .queued, failReason: message.failReason,
                deliveredAt: timestamp(message.deliveredAt), readAt: timestamp(message.readAt))
            switch message.status {
            case .delivered: info.status = .delivered
            case .read: info.status = .read
            case .failed: info.status = .failed
            // Only a `sent` event's report (`Messenger+Watch`): rows never hold it.
            case .sent: info.status = .sent
            case .queued, nil:
                // Not in the store yet: acknowledged (the mark is on its way), or in flight.
                if let deliveredAt = live.unrecordedDeliveries[message.stream]?.deliveredAt(
                    message.seq)
                {
                    info.status = .delivered
                    info.deliveredAt = timestamp(deliveredAt)
                } else if let inFlight = live.inFlight, inFlight.stream == message.stream,
                    inFlight.seqs.contains(message.seq)
                {
                    info.status = .sent
                }
            }
            return info
        }
    }
}

extension MessageStatus {
    /// The API name of a stored status.
    init(_ stored: StoredStatus) {
        switch stored {
        case .queued: self = .queued
        case .sent: self = .sent
        case .delivered: self = .delivered
        case .read: self = .read
        case .failed: self = .failed
        }
    }
}

extension StoredEventType {
    /// The API name of a logged event's type (the same strings).
    var apiType: EventType {
        switch self {
        case .messageReceived: .messageReceived
        case .messageStatus: .messageStatus
        case .peerPresence: .peerPresence
        case .peerNew: .peerNew
        case .peerKeyMismatch: .peerKeyMismatch
        case .conversationRead: .conversationRead
        case .groupChanged: .groupChanged
        case .requestNew: .requestNew
        }
    }
}
