import FoundationEssentials
import LanChatControl

/// Reads just enough of a response line to know which call it answers. The full result is
/// decoded later by the caller, which knows its type.
enum ResponseRouting {
    enum Route: Equatable {
        /// The answer to the call with this id.
        case response(id: Int64)
        /// An error the daemon could not attribute to a request (`"id": null`).
        case errorWithoutID(ControlError)
        /// A notification (`method`, no `id`), e.g. a future `watch` event.
        case notification
        /// An id this client never sent or no longer waits for (a cancelled call).
        case unknownID
        case malformed(String)
    }

    struct Head: Decodable, Equatable {
        var id: RPCID?
        var method: String?
        var error: RPCErrorObject?
    }

    static func classify(_ line: [UInt8]) -> Route {
        let head: Head
        do {
            // The reader thread runs this on every answer, 400 KB for a 1 000-message send:
            // the fast path reads only the keys it needs; JSONDecoder decides the rest.
            head = try fastHead(line) ?? JSONDecoder().decode(Head.self, from: Data(line))
        } catch {
            return .malformed("not a JSON-RPC response object")
        }
        switch head.id {
        case .number(let id): return .response(id: id)
        case .string, .decimal: return .unknownID
        case nil:
            if let error = head.error { return .errorWithoutID(error.controlError) }
            if head.method != nil { return .notification }
            return .malformed("a response without an id")
        }
    }

    /// `Head` through `JSONReader`, or nil to leave the line to `JSONDecoder`: always for an
    /// `error` object (rare, and its decoding lives there).
    static func fastHead(_ line: [UInt8]) -> Head? {
        JSONReader.read(line) { reader in
            var id: RPCID??
            var method: String??
            var sawError = false
            let complete = reader.readObject { reader, key in
                switch key {
                case "id": return reader.optionalField(&id) { $0.readRPCID() }
                case "method": return reader.optionalField(&method) { $0.readString() }
                case "error":
                    guard !sawError, reader.readNull() else { return false }
                    sawError = true
                    return true
                default: return reader.skipValue()
                }
            }
            guard complete else { return nil }
            return Head(id: id ?? nil, method: method ?? nil, error: nil)
        }
    }
}
