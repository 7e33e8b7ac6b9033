/// The results whose answers carry many messages; see `FastJSONDecodable`.

extension SendResult: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        let messages = reader.readSingleMember("messages") {
            $0.readArray { $0.read(MessageInfo.self) }
        }
        guard let messages else { return nil }
        self.init(messages: messages)
    }
}

extension HistoryResult: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var peer: PeerInfo?
        var messages: [MessageInfo]?
        var hasOlder: Bool?
        let complete = reader.readObject { reader, key in
            switch key {
            case "peer": reader.field(&peer) { $0.read(PeerInfo.self) }
            case "messages": reader.field(&messages) { $0.readArray { $0.read(MessageInfo.self) } }
            case "hasOlder": reader.field(&hasOlder) { $0.readBool() }
            default: reader.skipValue()
            }
        }
        guard complete, let peer, let messages, let hasOlder else { return nil }
        self.init(peer: peer, messages: messages, hasOlder: hasOlder)
    }
}
