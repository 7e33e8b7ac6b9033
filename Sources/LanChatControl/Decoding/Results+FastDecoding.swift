/// The results whose answers carry many messages; see `FastJSONDecodable`.

extension SendResult: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var ids: [String]?
        var messages: [MessageInfo]?
        var keyChange: KeyChangeInfo??
        let complete = reader.readObject { reader, key in
            switch key {
            case "ids": reader.field(&ids) { $0.readArray { $0.readString() } }
            case "messages": reader.field(&messages) { $0.readArray { $0.read(MessageInfo.self) } }
            case "keyChange": reader.optionalField(&keyChange) { $0.read(KeyChangeInfo.self) }
            default: reader.skipValue()
            }
        }
        // As `init(from:)`: without `ids` (an older daemon), the messages give them.
        guard complete, let ids = ids ?? messages?.map(\.id) else { return nil }
        self.ids = ids
        self.messages = messages
        self.keyChange = keyChange ?? nil
    }
}

extension KeyChangeInfo: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var peer: PeerCandidate?
        var previous: PeerCandidate??
        let complete = reader.readObject { reader, key in
            switch key {
            case "peer": reader.field(&peer) { $0.read(PeerCandidate.self) }
            case "previous": reader.optionalField(&previous) { $0.read(PeerCandidate.self) }
            default: reader.skipValue()
            }
        }
        guard complete, let peer else { return nil }
        self.init(peer: peer, previous: previous ?? nil)
    }
}

extension PeerCandidate: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var id: String?
        var keyTag: String?
        var name: String?
        var alias: String??
        let complete = reader.readObject { reader, key in
            switch key {
            case "id": reader.field(&id) { $0.readString() }
            case "keyTag": reader.field(&keyTag) { $0.readString() }
            case "name": reader.field(&name) { $0.readString() }
            case "alias": reader.optionalField(&alias) { $0.readString() }
            default: reader.skipValue()
            }
        }
        guard complete, let id, let keyTag, let name else { return nil }
        self.init(id: id, keyTag: keyTag, name: name, alias: alias ?? nil)
    }
}

extension HistoryResult: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var peer: PeerInfo?
        var messages: [MessageInfo]?
        var hasOlder: Bool?
        var hasNewer: Bool?
        var group: GroupInfo??
        let complete = reader.readObject { reader, key in
            switch key {
            case "group": reader.optionalField(&group) { $0.read(GroupInfo.self) }
            case "peer": reader.field(&peer) { $0.read(PeerInfo.self) }
            case "messages": reader.field(&messages) { $0.readArray { $0.read(MessageInfo.self) } }
            case "hasOlder": reader.field(&hasOlder) { $0.readBool() }
            case "hasNewer": reader.field(&hasNewer) { $0.readBool() }
            default: reader.skipValue()
            }
        }
        guard complete, let peer, let messages, let hasOlder else { return nil }
        self.init(peer: peer, messages: messages, hasOlder: hasOlder, hasNewer: hasNewer ?? false)
        self.group = group ?? nil
    }
}

extension GroupInfo: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var id: String?
        var name: String?
        var members: [PeerInfo]?
        var version: UInt64?
        var request: Bool?
        // Every key of `GroupInfo` (found by QA: `left` was skipped, so a group we had left
        // read as one we were in, in `history` and in its --json).
        var left: Bool?
        let complete = reader.readObject { reader, key in
            switch key {
            case "request": reader.field(&request) { $0.readBool() }
            case "left": reader.field(&left) { $0.readBool() }
            case "id": reader.field(&id) { $0.readString() }
            case "name": reader.field(&name) { $0.readString() }
            case "members": reader.field(&members) { $0.readArray { $0.read(PeerInfo.self) } }
            case "version": reader.field(&version) { $0.readUInt64() }
            default: reader.skipValue()
            }
        }
        guard complete, let id, let name, let members, let version else { return nil }
        self.init(id: id, name: name, members: members, version: version)
        self.request = request
        self.left = left
    }
}
