import FoundationEssentials
import LanChatControl

extension ControlDispatcher {
    /// Registers a streaming method. `open` checks the params and resolves what they name
    /// (a peer, a group, a cursor) before anything is streamed: an error it throws refuses the
    /// request like any other method's, by its id, and the connection stays a request
    /// connection. Once opened, its result is the first line and the stream takes the
    /// connection; an error the stream throws ends it with one more line, an error response
    /// carrying the request's id.
    mutating func registerStreaming<Method: ControlMethod & SendableMetatype>(
        _ method: Method.Type,
        _ open:
            @escaping @Sendable (Method.Params) async throws(ControlError) -> OpenedStream<Method>
    ) {
        streamHandlers[Method.name] = { request, id in
            let opened: OpenedStream<Method>
            do throws(ControlError) {
                opened = try await open(try Self.decodeParams(Method.Params.self, from: request))
            } catch {
                return .refused(Self.encode(RPCResponse<Method.Result>(id: id, error: error)))
            }
            return .opened(Self.encode(RPCResponse(id: id, result: opened.result))) { writer in
                do throws(ControlError) {
                    try await opened.stream(StreamingAnswer(writer: writer))
                } catch {
                    try? await writer.write(
                        Self.encode(RPCResponse<Method.Result>(id: id, error: error)))
                }
            }
        }
    }

    /// The answer to a request line sent on a connection that is streaming (`watch`): the
    /// connection is the stream's, so the request is refused by its id, saying where to send
    /// it, and the stream goes on. A line that is no request gets the error any connection
    /// gives it.
    static func refuseWhileStreaming(_ line: Data) -> Data {
        switch readHead(line) {
        case .refused(let response):
            return response
        case .read(let head, let method):
            return encode(
                RPCResponse<NoParams>(
                    id: head.id,
                    error: .invalidRequest(
                        "this connection is streaming a watch, which has it to itself; send "
                            + "'\(method)' on another connection (the watch goes on)")))
        }
    }
}
