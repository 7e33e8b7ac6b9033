import FoundationEssentials
import LanChatControl
import NIOCore

/// The whole control API as one table: JSON-RPC method name → handler. Decoding, the error
/// envelope and `apiVersion` live here once, so a handler is only "params in, result out".
struct ControlDispatcher: Sendable {
    typealias RawHandler = @Sendable (_ request: Data, _ id: RPCID?) async -> Data
    typealias RawStreamHandler = @Sendable (_ request: Data, _ id: RPCID?) async -> StreamOpening

    private var handlers: [String: RawHandler] = [:]
    /// Methods that answer once and then keep writing notifications (`watch`): once opened,
    /// the connection is theirs until they end. Registered by `registerStreaming`.
    var streamHandlers: [String: RawStreamHandler] = [:]

    var methodNames: [String] { (Array(handlers.keys) + Array(streamHandlers.keys)).sorted() }

    mutating func register<Method: ControlMethod>(
        _ method: Method.Type,
        _ handler: @escaping @Sendable (Method.Params) async throws(ControlError) -> Method.Result
    ) {
        handlers[Method.name] = { request, id in
            let params: Method.Params
            do throws(ControlError) {
                params = try Self.decodeParams(Method.Params.self, from: request)
            } catch {
                return Self.encode(RPCResponse<Method.Result>(id: id, error: error))
            }
            do throws(ControlError) {
                return Self.encode(RPCResponse(id: id, result: try await handler(params)))
            } catch {
                return Self.encode(RPCResponse<Method.Result>(id: id, error: error))
            }
        }
    }

    /// What a request line asks for, its head read once: an answer of one line (errors about
    /// the request itself included), or a stream, which opens with one line too (its result,
    /// or the error that refuses it) and only once opened needs the connection to itself.
    enum Route: Sendable {
        case single(@Sendable () async -> Data)
        case stream(@Sendable () async -> StreamOpening)
    }

    func route(_ line: Data) -> Route {
        let head: RPCRequestHead
        let method: String
        switch Self.readHead(line) {
        case .read(let read, let name): (head, method) = (read, name)
        case .refused(let response): return .single { response }
        }
        if let handler = handlers[method] {
            return .single { await handler(line, head.id) }
        }
        if let stream = streamHandlers[method] {
            return .stream { await stream(line, head.id) }
        }
        return Self.answer(RPCResponse<NoParams>(id: head.id, error: .methodNotFound(method)))
    }

    /// A request line's head as far as every request needs it, or the error response for a
    /// line that is not a JSON-RPC 2.0 request.
    enum HeadReading {
        case read(RPCRequestHead, method: String)
        case refused(Data)
    }

    static func readHead(_ line: Data) -> HeadReading {
        let head: RPCRequestHead
        do {
            if let fast = Self.fastRead(RPCRequestHead.self, from: line) {
                // `JSONReader` checked every string of the line, skipped ones included.
                head = fast
            } else {
                // `JSONDecoder` is lenient where RFC 8259 is not (`JSONSyntax`): checked first.
                if let refusal = refusal(of: line) { return .refused(refusal) }
                head = try ControlJSON.decoder().decode(RPCRequestHead.self, from: line)
            }
        } catch DecodingError.dataCorrupted {
            // `JSONSyntax` passed it: a string of the head is no Unicode. The id is given
            // back when it can be read (found by QA: a lone surrogate in "method" lost it).
            let outcome = line.withUnsafeBytes { JSONSyntax.check($0) }
            return .refused(
                encode(
                    RPCResponse<NoParams>(
                        id: id(in: line, at: outcome.idValue),
                        error: .parseError(
                            "the request is not valid JSON: a string in it is not Unicode (a "
                                + "lone surrogate escape, or bytes that are not UTF-8)"))))
        } catch DecodingError.typeMismatch(let type, _) where type == RPCID.self {
            // Null is the only id left to answer with; the message says why it is not theirs.
            return .refused(
                encode(
                    RPCResponse<NoParams>(
                        id: nil,
                        error: .invalidRequest(
                            "\"id\" must be a string, null, or a number lanchatd can give back "
                                + "exactly: a magnitude from 1e-128 to below 1e128"))))
        } catch {
            // A member of the wrong type (`"method": 5`) still leaves an id that can be read:
            // null is for requests read too little to find it (found by QA).
            let id = (try? ControlJSON.decoder().decode(RPCRequestID.self, from: line))?.id
            return .refused(
                encode(
                    RPCResponse<NoParams>(
                        id: id,
                        error: .invalidRequest(
                            "the request is not a JSON-RPC 2.0 object with a \"method\" string"
                        ))))
        }
        guard head.jsonrpc == "2.0", let method = head.method else {
            return .refused(
                encode(
                    RPCResponse<NoParams>(
                        id: head.id,
                        error: .invalidRequest(
                            "a request needs \"jsonrpc\": \"2.0\" and a \"method\" string"))))
        }
        return .read(head, method: method)
    }

    /// The answer to a line that `JSONSyntax` finds fault with, with its id when that was
    /// read before the fault; nil for a line that passes.
    static func refusal(of line: Data) -> Data? {
        let outcome = line.withUnsafeBytes { JSONSyntax.check($0) }
        guard let fault = outcome.fault else { return nil }
        // Two ids: neither is the request's.
        let id = fault == .duplicateKey("id") ? nil : id(in: line, at: outcome.idValue)
        return encode(RPCResponse<NoParams>(id: id, error: controlError(fault)))
    }

    /// The id whose value is at `range` of `line` (`JSONSyntax.Outcome.idValue`), if it reads.
    private static func id(in line: Data, at range: Range<Int>?) -> RPCID? {
        guard let range else { return nil }
        let start = line.startIndex + range.lowerBound
        return try? ControlJSON.decoder().decode(
            RPCID.self, from: line[start..<start + range.count])
    }

    static func controlError(_ fault: JSONSyntax.Fault) -> ControlError {
        switch fault {
        case .malformed: .parseError(fault.message)
        case .duplicateKey: .invalidRequest(fault.message)
        }
    }

    private static func answer(_ response: RPCResponse<NoParams>) -> Route {
        let line = encode(response)
        return .single { line }
    }

    static func tooLongResponse() -> Data {
        encode(
            RPCResponse<NoParams>(
                id: nil,
                error: .invalidRequest(
                    "request line longer than \(ControlAPI.maxRequestBytes) bytes")))
    }

    static func decodeParams<Params: Decodable>(_ type: Params.Type, from line: Data)
        throws(ControlError) -> Params
    {
        if let fast = type as? any (FastJSONDecodable & Decodable).Type,
            let params = fastParams(fast, from: line) as? Params
        {
            return params
        }
        // The head was read without looking into the params: `JSONDecoder` would take the
        // first of two keys of one name there (found by QA).
        if let fault = line.withUnsafeBytes({ JSONSyntax.check($0) }).fault {
            throw Self.controlError(fault)
        }
        let decoded: RPCRequestParams<Params>
        do {
            decoded = try ControlJSON.decoder().decode(RPCRequestParams<Params>.self, from: line)
        } catch {
            throw Self.paramsError(error, line: line)
        }
        if let params = decoded.params { return params }
        // No params (or null): fine if the method's params are all optional.
        do {
            return try ControlJSON.decoder().decode(Params.self, from: Data("{}".utf8))
        } catch {
            throw .invalidParams("invalid params: \(Self.describe(error))")
        }
    }

    /// The fast path (`JSONReader`) where a type has one; nil sends the line to `JSONDecoder`,
    /// which reads the same values and words the errors.
    private static func fastRead<Value: FastJSONDecodable>(_ type: Value.Type, from line: Data)
        -> Value?
    {
        line.withUnsafeBytes { bytes in JSONReader.read(bytes) { Value(json: &$0) } }
    }

    private static func fastParams<Params: FastJSONDecodable & Decodable>(
        _ type: Params.Type, from line: Data
    ) -> Params? {
        fastRead(RPCRequestParams<Params>.self, from: line)?.params
    }

    /// Why params did not decode. The head was read without looking into the params, so a
    /// failure of the whole document is in them: text that is not UTF-8 is bad input (as
    /// PRODUCT.md §6 has it for the CLI). `JSONDecoder` words every other such failure "not
    /// valid JSON", also for a number that only does not fit its field; it says no more.
    static func paramsError(_ error: any Error, line: Data) -> ControlError {
        guard case DecodingError.dataCorrupted(let context) = error, context.codingPath.isEmpty
        else { return .invalidParams("invalid params: \(describe(error))") }
        guard String(validating: line, as: UTF8.self) != nil else {
            return .badInput("the request is not valid UTF-8")
        }
        return .invalidParams(
            "invalid params: a value does not fit its field (a number out of range or not "
                + "whole, or a string with a lone surrogate)")
    }

    /// A short, user-facing account of a decoding error: which field, what was wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            // `texts[1]`, not Foundation's `texts.Index 1` (found by QA).
            var path = ""
            for key in context.codingPath where key.stringValue != "params" {
                if let index = key.intValue {
                    path += "[\(index)]"
                } else {
                    path += (path.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return path.isEmpty ? "params" : path
        }
        switch error {
        case .keyNotFound(let key, _): return "missing \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context)) should be \(jsonKind(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) should be \(jsonKind(type)), not null"
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            // Foundation says "not valid JSON" for a number out of range; the JSON was fine.
            return "\(path(context)) has a value out of range or of the wrong form"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// What a Swift type is called in JSON, for an API user who never sees Swift.
    static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is any BinaryInteger.Type: return "a whole number"
        case is any BinaryFloatingPoint.Type: return "a number"
        default:
            return "\(type)".hasPrefix("Array<") ? "an array" : "an object"
        }
    }

    static func encode<Result: Codable>(_ response: RPCResponse<Result>) -> Data {
        do {
            return Data(try response.encodedLine())
        } catch {
            // Every result type encodes; this would be a bug, answered rather than crashed on.
            let text =
                #"{"jsonrpc":"2.0","id":null,"apiVersion":"# + "\(ControlAPI.version)"
                + #","error":{"code":-32603,"message":"cannot encode the result"}}"#
            return Data(text.utf8)
        }
    }
}

/// Only a request's id, read when the rest of its head does not decode.
private struct RPCRequestID: Decodable {
    var id: RPCID?
}
