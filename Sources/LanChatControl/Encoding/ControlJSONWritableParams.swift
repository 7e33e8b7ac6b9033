/// Request params the client writes itself into a `ControlJSONOutput`, byte for byte what
/// `ControlJSON.encoder()` writes (the tests compare the two on generated values). Only
/// `send` conforms: its `texts` carry the thousands of lines of `send --lines`, and a
/// `send --wait` is the request whose latency users measure. Everything else goes through
/// `JSONEncoder`.
public protocol ControlJSONWritableParams: Encodable {
    /// Writes the params; false where `JSONEncoder` would throw (a value JSON cannot hold),
    /// so that the caller lets the encoder say why. What was written is then unusable.
    func write(to output: inout ControlJSONOutput) -> Bool
}

extension RPCRequest {
    /// The request line (without its newline) as `ControlJSON.encoder()` writes it, when the
    /// params write themselves (`ControlJSONWritableParams`); nil otherwise.
    public func writtenLine() -> [UInt8]? {
        guard let writable = params as? any ControlJSONWritableParams else { return nil }
        var output = ControlJSONOutput(reservingCapacity: 256)
        output.beginObject()
        output.key("id")
        output.rpcID(id)
        output.key("jsonrpc")
        output.string(jsonrpc)
        output.key("method")
        output.string(method)
        output.key("params")
        guard writable.write(to: &output) else { return nil }
        output.endObject()
        return output.bytes
    }
}

extension SendParams: ControlJSONWritableParams {
    /// Keys in sorted order; a nil optional is left out, as the synthesized `Encodable` does.
    public func write(to output: inout ControlJSONOutput) -> Bool {
        output.beginObject()
        if let idsOnly {
            output.key("idsOnly")
            output.bool(idsOnly)
        }
        output.key("peer")
        output.string(peer)
        if let text {
            output.key("text")
            output.string(text)
        }
        if let texts {
            output.key("texts")
            output.array(texts) { $0.string($1) }
        }
        if let timeout {
            output.key("timeout")
            guard output.double(timeout) else { return false }
        }
        if let wait {
            output.key("wait")
            output.bool(wait)
        }
        if let waitRead {
            output.key("waitRead")
            output.bool(waitRead)
        }
        output.endObject()
        return true
    }
}
