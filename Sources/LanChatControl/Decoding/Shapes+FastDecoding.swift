/// The fast-path twins of the synthesized `init(from:)` of the shapes results are made of.
/// Each reads every key of its `CodingKeys`: when a field is added, add it here too (an
/// optional one would otherwise be silently dropped) and to `SampleGenerator` in the tests,
/// which compare both paths on generated values.

extension MessageInfo: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var id: String?
        var peer: String?
        var direction: MessageDirection?
        var seq: UInt64?
        var text: String?
        var createdAt: Timestamp?
        var receivedAt: Timestamp??
        var read: Bool??
        var status: MessageStatus??
        var failReason: String??
        var deliveredAt: Timestamp??
        var readAt: Timestamp??
        var group: String??
        var sender: String??
        var recipients: [RecipientInfo]??
        var truncated: Bool??
        let complete = reader.readObject { reader, key in
            switch key {
            case "id": reader.field(&id) { $0.readString() }
            case "peer": reader.field(&peer) { $0.readString() }
            case "direction": reader.field(&direction) { $0.readEnum(MessageDirection.self) }
            case "seq": reader.field(&seq) { $0.readUInt64() }
            case "text": reader.field(&text) { $0.readString() }
            case "createdAt": reader.field(&createdAt) { $0.readTimestamp() }
            case "receivedAt": reader.optionalField(&receivedAt) { $0.readTimestamp() }
            case "read": reader.optionalField(&read) { $0.readBool() }
            case "status": reader.optionalField(&status) { $0.readEnum(MessageStatus.self) }
            case "failReason": reader.optionalField(&failReason) { $0.readString() }
            case "deliveredAt": reader.optionalField(&deliveredAt) { $0.readTimestamp() }
            case "readAt": reader.optionalField(&readAt) { $0.readTimestamp() }
            case "group": reader.optionalField(&group) { $0.readString() }
            case "sender": reader.optionalField(&sender) { $0.readString() }
            case "recipients":
                reader.optionalField(&recipients) {
                    $0.readArray { $0.read(RecipientInfo.self) }
                }
            case "truncated": reader.optionalField(&truncated) { $0.readBool() }
            default: reader.skipValue()
            }
        }
        guard complete, let id, let peer, let direction, let seq, let text, let createdAt else {
            return nil
        }
        self.init(
            id: id, peer: peer, direction: direction, seq: seq, text: text, createdAt: createdAt,
            receivedAt: receivedAt ?? nil, read: read ?? nil, status: status ?? nil,
            failReason: failReason ?? nil, deliveredAt: deliveredAt ?? nil, readAt: readAt ?? nil)
        self.group = group ?? nil
        self.sender = sender ?? nil
        self.recipients = recipients ?? nil
        self.truncated = truncated ?? nil
    }
}

extension RecipientInfo: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var peer: String?
        var status: MessageStatus?
        var deliveredAt: Timestamp??
        var readAt: Timestamp??
        var failReason: String??
        let complete = reader.readObject { reader, key in
            switch key {
            case "peer": reader.field(&peer) { $0.readString() }
            case "status": reader.field(&status) { $0.readEnum(MessageStatus.self) }
            case "deliveredAt": reader.optionalField(&deliveredAt) { $0.readTimestamp() }
            case "readAt": reader.optionalField(&readAt) { $0.readTimestamp() }
            case "failReason": reader.optionalField(&failReason) { $0.readString() }
            default: reader.skipValue()
            }
        }
        guard complete, let peer, let status else { return nil }
        self.init(
            peer: peer, status: status, deliveredAt: deliveredAt ?? nil, readAt: readAt ?? nil,
            failReason: failReason ?? nil)
    }
}

extension PeerInfo: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var id: String?
        var keyTag: String?
        var name: String?
        var alias: String??
        var presence: Presence?
        var status: Availability?
        var statusText: String?
        var trust: Trust?
        var contact: Bool?
        var lastSeen: Timestamp??
        var addresses: [String]?
        let complete = reader.readObject { reader, key in
            switch key {
            case "id": reader.field(&id) { $0.readString() }
            case "keyTag": reader.field(&keyTag) { $0.readString() }
            case "name": reader.field(&name) { $0.readString() }
            case "alias": reader.optionalField(&alias) { $0.readString() }
            case "presence": reader.field(&presence) { $0.readEnum(Presence.self) }
            case "status": reader.field(&status) { $0.readEnum(Availability.self) }
            case "statusText": reader.field(&statusText) { $0.readString() }
            case "trust": reader.field(&trust) { $0.readEnum(Trust.self) }
            case "contact": reader.field(&contact) { $0.readBool() }
            case "lastSeen": reader.optionalField(&lastSeen) { $0.readTimestamp() }
            case "addresses":
                reader.field(&addresses) { $0.readArray { $0.readString() } }
            default: reader.skipValue()
            }
        }
        guard complete, let id, let keyTag, let name, let presence, let status, let statusText,
            let trust, let contact, let addresses
        else { return nil }
        self.init(
            id: id, keyTag: keyTag, name: name, alias: alias ?? nil, presence: presence,
            status: status, statusText: statusText, trust: trust, contact: contact,
            lastSeen: lastSeen ?? nil, addresses: addresses)
    }
}
