/// The daemon's side of the fast path: a request line's head and the params of `send`, whose
/// `texts` may hold 10 000 messages. Same contract as the results (`FastJSONDecodable`):
/// exactly what `JSONDecoder` reads, or nil, and then `JSONDecoder` decides and explains.

extension RPCRequestHead: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var jsonrpc: String??
        var id: RPCID??
        var method: String??
        let complete = reader.readObject { reader, key in
            switch key {
            case "jsonrpc": reader.optionalField(&jsonrpc) { $0.readString() }
            case "id": reader.optionalField(&id) { $0.readRPCID() }
            case "method": reader.optionalField(&method) { $0.readString() }
            default: reader.skipValue()
            }
        }
        guard complete else { return nil }
        self.init(jsonrpc: jsonrpc ?? nil, id: id ?? nil, method: method ?? nil)
    }
}

extension RPCRequestParams: FastJSONDecodable where Params: FastJSONDecodable {
    /// Nil when `params` is missing or null too: the caller's slow path handles "no params".
    package init?(json reader: inout JSONReader) {
        guard let params = reader.readSingleMember("params", { $0.read(Params.self) }) else {
            return nil
        }
        self.init(params: params)
    }
}

extension SendParams: FastJSONDecodable {
    package init?(json reader: inout JSONReader) {
        var peer: String?
        var text: String??
        var texts: [String]??
        var wait: Bool??
        var waitRead: Bool??
        var timeout: Double??
        var idsOnly: Bool??
        let complete = reader.readObject { reader, key in
            switch key {
            case "peer": reader.field(&peer) { $0.readString() }
            case "idsOnly": reader.optionalField(&idsOnly) { $0.readBool() }
            case "text": reader.optionalField(&text) { $0.readString() }
            case "texts": reader.optionalField(&texts) { $0.readArray { $0.readString() } }
            case "wait": reader.optionalField(&wait) { $0.readBool() }
            case "waitRead": reader.optionalField(&waitRead) { $0.readBool() }
            case "timeout": reader.optionalField(&timeout) { $0.readDouble() }
            default: reader.skipValue()
            }
        }
        guard complete, let peer else { return nil }
        self.init(
            peer: peer, text: text ?? nil, texts: texts ?? nil, wait: wait ?? nil,
            waitRead: waitRead ?? nil, timeout: timeout ?? nil, idsOnly: idsOnly ?? nil)
    }
}

extension JSONReader {
    /// A JSON-RPC id as `RPCID.init(from:)` reads it: an integer in Int64, or a string. Any
    /// other number (`.decimal`) is left to `JSONDecoder`: clients number their requests.
    package mutating func readRPCID() -> RPCID? {
        skipWhitespace()
        if next == UInt8(ascii: "\"") { return readString().map(RPCID.string) }
        return readInt().map { .number(Int64($0)) }
    }
}
