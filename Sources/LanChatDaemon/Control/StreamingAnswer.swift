import FoundationEssentials
import LanChatControl

/// Writes lines (newline added) to a control connection; throws once the client is gone.
struct ControlStreamWriter: Sendable {
    let writeLine: @Sendable (Data) async throws -> Void

    func write(_ line: Data) async throws {
        try await writeLine(line)
    }
}

/// A streaming method that accepted its request (`watch`): the result it answers with, and
/// the stream that follows on the same connection.
struct OpenedStream<Method: ControlMethod>: Sendable {
    let result: Method.Result
    let stream: @Sendable (StreamingAnswer<Method>) async throws(ControlError) -> Void
}

/// How a streaming request opens, as the control server sees it: refused with one error line
/// (the connection goes on taking requests), or opened with its first line and a stream.
enum StreamOpening: Sendable {
    case refused(Data)
    case opened(Data, @Sendable (ControlStreamWriter) async -> Void)
}

/// How an opened stream writes (`watch`): notifications, each a line written as it happens.
/// A client that went away makes these throw `unavailable`, which ends the stream.
struct StreamingAnswer<Method: ControlMethod>: Sendable {
    let writer: ControlStreamWriter

    func notify<Params: Codable>(_ method: String, _ params: Params) async throws(ControlError) {
        let line: Data
        do {
            line = try RPCNotification(method: method, params: params).encodedLine()
        } catch {
            throw .internalError("cannot encode a notification: \(error)")
        }
        do {
            try await writer.write(line)
        } catch {
            throw .unavailable("the client went away")
        }
    }
}
