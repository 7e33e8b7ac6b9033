/// A control API value that writes its own JSON into a `ControlJSONOutput`, byte for byte
/// what its `Encodable` conformance produces through `ControlJSON.encoder()` (the tests
/// compare the two on generated values). Only the shapes that answers carry by the
/// thousand conform; everything else goes through `JSONEncoder`.
public protocol ControlJSONWritable: Encodable {
    func write(to output: inout ControlJSONOutput)
}

extension RPCResponse {
    /// The response line (without its newline) as `ControlJSON.encoder()` writes it, through
    /// `ControlJSONWritable` when the result conforms.
    public func encodedLine() throws -> [UInt8] {
        guard error == nil, let result, let writable = result as? any ControlJSONWritable else {
            return Array(try ControlJSON.encoder().encode(self))
        }
        var output = ControlJSONOutput(reservingCapacity: 4_096)
        output.beginObject()
        output.key("apiVersion")
        output.integer(apiVersion)
        output.key("id")
        output.rpcID(id)
        output.key("jsonrpc")
        output.string(jsonrpc)
        output.key("result")
        writable.write(to: &output)
        output.endObject()
        return output.bytes
    }
}

extension MessageInfo: ControlJSONWritable {
    public func write(to output: inout ControlJSONOutput) {
        output.beginObject()
        output.key("createdAt")
        output.timestamp(createdAt)
        output.key("deliveredAt")
        output.optional(deliveredAt) { $0.timestamp($1) }
        output.key("direction")
        output.string(direction.rawValue)
        output.key("failReason")
        output.optional(failReason) { $0.string($1) }
        output.key("group")
        output.optional(group) { $0.string($1) }
        output.key("id")
        output.string(id)
        output.key("peer")
        output.string(peer)
        output.key("read")
        output.optional(read) { $0.bool($1) }
        output.key("readAt")
        output.optional(readAt) { $0.timestamp($1) }
        output.key("receivedAt")
        output.optional(receivedAt) { $0.timestamp($1) }
        if group != nil {
            output.key("recipients")
            output.optional(recipients) { output, recipients in
                output.array(recipients) { output, recipient in
                    output.beginObject()
                    output.key("deliveredAt")
                    output.optional(recipient.deliveredAt) { $0.timestamp($1) }
                    // Found by QA: left out, a failed copy never said why in --json.
                    output.key("failReason")
                    output.optional(recipient.failReason) { $0.string($1) }
                    output.key("peer")
                    output.string(recipient.peer)
                    output.key("readAt")
                    output.optional(recipient.readAt) { $0.timestamp($1) }
                    output.key("status")
                    output.string(recipient.status.rawValue)
                    output.endObject()
                }
            }
            output.key("sender")
            output.optional(sender) { $0.string($1) }
        }
        output.key("seq")
        output.integer(seq)
        output.key("status")
        output.optional(status) { $0.string($1.rawValue) }
        output.key("text")
        output.string(text)
        if truncated == true {
            output.key("truncated")
            output.bool(true)
        }
        output.endObject()
    }
}

extension PeerInfo: ControlJSONWritable {
    public func write(to output: inout ControlJSONOutput) {
        output.beginObject()
        output.key("addresses")
        output.array(addresses) { $0.string($1) }
        output.key("alias")
        output.optional(alias) { $0.string($1) }
        output.key("contact")
        output.bool(contact)
        output.key("id")
        output.string(id)
        output.key("keyTag")
        output.string(keyTag)
        output.key("lastSeen")
        output.optional(lastSeen) { $0.timestamp($1) }
        output.key("name")
        output.string(name)
        output.key("presence")
        output.string(presence.rawValue)
        output.key("status")
        output.string(status.rawValue)
        output.key("statusText")
        output.string(statusText)
        output.key("trust")
        output.string(trust.rawValue)
        output.endObject()
    }
}

extension SendResult: ControlJSONWritable {
    /// `{"ids":[…],"keyChange":{…},"messages":[…]}`, `keyChange` and `messages` left out
    /// when nil, as `JSONEncoder` does.
    public func write(to output: inout ControlJSONOutput) {
        output.beginObject()
        output.key("ids")
        output.array(ids) { $0.string($1) }
        if let keyChange {
            output.key("keyChange")
            output.beginObject()
            output.key("peer")
            output.candidate(keyChange.peer)
            output.key("previous")
            output.optional(keyChange.previous) { $0.candidate($1) }
            output.endObject()
        }
        if let messages {
            output.key("messages")
            output.array(messages) { $0.value($1) }
        }
        output.endObject()
    }
}

extension RetryResult: ControlJSONWritable {
    public func write(to output: inout ControlJSONOutput) {
        output.messagesObject(messages)
    }
}

extension ControlJSONOutput {
    /// A `PeerCandidate`, `alias` written as `null` when unset.
    mutating func candidate(_ candidate: PeerCandidate) {
        beginObject()
        key("alias")
        optional(candidate.alias) { $0.string($1) }
        key("id")
        string(candidate.id)
        key("keyTag")
        string(candidate.keyTag)
        key("name")
        string(candidate.name)
        endObject()
    }

    /// `{"messages":[…]}`, the whole of a `retry` answer.
    mutating func messagesObject(_ messages: [MessageInfo]) {
        beginObject()
        key("messages")
        array(messages) { $0.value($1) }
        endObject()
    }
}

extension HistoryResult: ControlJSONWritable {
    public func write(to output: inout ControlJSONOutput) {
        output.beginObject()
        if let group {
            output.key("group")
            output.value(group)
        }
        output.key("hasNewer")
        output.bool(hasNewer)
        output.key("hasOlder")
        output.bool(hasOlder)
        output.key("messages")
        output.array(messages) { $0.value($1) }
        output.key("peer")
        output.value(peer)
        output.endObject()
    }
}

extension GroupInfo: ControlJSONWritable {
    public func write(to output: inout ControlJSONOutput) {
        output.beginObject()
        output.key("id")
        output.string(id)
        // Only when true, as `encode(to:)` writes them (found by QA: left out here, a group
        // we had left read in `history` as one we could send to).
        if left == true {
            output.key("left")
            output.bool(true)
        }
        output.key("members")
        output.array(members) { $0.value($1) }
        output.key("name")
        output.string(name)
        if request == true {
            output.key("request")
            output.bool(true)
        }
        output.key("version")
        output.integer(version)
        output.endObject()
    }
}
