import Foundation

/// A JSON-RPC 2.0 notification (no `id`): how `watch` streams its events
/// (`{"jsonrpc":"2.0","method":"event","params":{…}}`).
public struct RPCNotification<Params: Codable>: Codable {
    public var jsonrpc = "2.0"
    public var method: String
    public var params: Params

    public init(method: String, params: Params) {
        self.method = method
        self.params = params
    }

    /// One line of the stream, without the newline.
    public func encodedLine() throws -> Data {
        try ControlJSON.encoder().encode(self)
    }
}
