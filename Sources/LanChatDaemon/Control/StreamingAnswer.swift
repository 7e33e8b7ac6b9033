import FoundationEssentials
import LanChatControl

/// Writes lines (newline added) to a control connection; throws once the client is gone.
struct ControlStreamWriter: Sendable {
    let writeLine: @Sendable (Data) async throws -> Void

    func write(_ line: Data) async throws {
        try await writeLine(line)
    }
}

/// How a streaming method answers (`watch`): its result once, then notifications, each a
/// line written as it happens. A client that went away makes these throw `unavailable`,
/// which ends the handler.
struct StreamingAnswer<Method: ControlMethod>: Sendable {
    let id: RPCID?
    let writer: ControlStreamWriter

    func start(_ result: Method.Result) async throws(ControlError) {
        try await send(ControlDispatcher.encode(RPCResponse(id: id, result: result)))
    }

    func notify<Params: Codable>(_ method: String, _ params: Params) async throws(ControlError) {
        let line: Data
        do {
            line = try RPCNotification(method: method, params: params).encodedLine()
        } catch {
            throw .internalError("cannot encode a notification: \(error)")
        }
        try await send(line)
    }

    private func send(_ line: Data) async throws(ControlError) {
        do {
            try await writer.write(line)
        } catch {
            throw .unavailable("the client went away")
        }
    }
}
