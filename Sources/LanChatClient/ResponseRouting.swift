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

    private struct Head: Decodable {
        var id: RPCID?
        var method: String?
        var error: RPCErrorObject?
    }

    static func classify(_ line: [UInt8]) -> Route {
        let head: Head
        do {
            head = try JSONDecoder().decode(Head.self, from: Data(line))
        } catch {
            return .malformed("not a JSON-RPC response object")
        }
        switch head.id {
        case .number(let id): return .response(id: id)
        case .string: return .unknownID
        case nil:
            if let error = head.error { return .errorWithoutID(error.controlError) }
            if head.method != nil { return .notification }
            return .malformed("a response without an id")
        }
    }
}
