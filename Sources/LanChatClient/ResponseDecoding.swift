import FoundationEssentials
import LanChatControl

/// Decodes a whole response line into a method's result or its `ControlError`. Runs on the
/// calling task (pure CPU work, no I/O).
package enum ResponseDecoding {
    /// Lenient twin of `RPCResponse` for reading: `jsonrpc` and `apiVersion` may be absent,
    /// so that only what the client needs can make a response unreadable.
    private struct Envelope<Result: Decodable>: Decodable {
        var apiVersion: Int?
        var result: Result?
        var error: RPCErrorObject?
    }

    private struct VersionOnly: Decodable {
        var apiVersion: Int?
    }

    package static func result<Result: Decodable>(_ type: Result.Type, from line: [UInt8])
        throws(ControlError) -> Result
    {
        if let fastType = Result.self as? any FastJSONDecodable.Type,
            let result = fastResult(fastType, from: line) as? Result
        {
            return result
        }
        let data = Data(line)
        let envelope: Envelope<Result>
        do {
            envelope = try ControlJSON.decoder().decode(Envelope<Result>.self, from: data)
        } catch {
            throw .internalError(unreadable(data, detail: describe(error)))
        }
        if let error = envelope.error {
            throw error.controlError
        }
        guard let result = envelope.result else {
            throw .internalError("lanchatd sent a response with neither a result nor an error")
        }
        // lanchat-api(7): another version may mean the same fields with other meanings; a
        // result that decodes is no proof that it reads right. Said, not guessed at (QA: a
        // version-2 answer was printed as if it were ours). `status` is the exception: it
        // exists to tell, and `status` and `doctor` name both versions themselves.
        if let version = envelope.apiVersion, version != ControlAPI.version,
            Result.self != StatusResult.self
        {
            throw .internalError(
                "lanchatd speaks control API \(version), this lanchat speaks "
                    + "\(ControlAPI.version): install matching versions")
        }
        return result
    }

    /// The whole envelope through `JSONReader`, for the results whose answers carry many
    /// messages: the result, or nil for anything else (a daemon error, no result, anything the
    /// reader declines), which the `JSONDecoder` path above then answers and words as before.
    /// Reads what `Envelope` reads: `apiVersion` must be an integer or null, other keys
    /// (`jsonrpc`, `id`) are only checked to be JSON.
    package static func fastResult<Result: FastJSONDecodable>(
        _ type: Result.Type, from line: [UInt8]
    ) -> Result? {
        JSONReader.read(line) { reader in
            var apiVersion: Int??
            var result: Result??
            var error: Never??
            let complete = reader.readObject { reader, key in
                switch key {
                case "apiVersion": reader.optionalField(&apiVersion) { $0.readInt() }
                case "result": reader.optionalField(&result) { Result(json: &$0) }
                // Only `null` passes: an error object goes the JSONDecoder way.
                case "error": reader.optionalField(&error) { _ in nil }
                default: reader.skipValue()
                }
            }
            // Another API version goes the JSONDecoder way, which refuses it in words.
            if case .some(.some(let version)) = apiVersion, version != ControlAPI.version {
                return nil
            }
            return complete ? result ?? nil : nil
        }
    }

    /// Says which field was wrong, and whether a different API version is the likely cause.
    private static func unreadable(_ data: Data, detail: String) -> String {
        let version = (try? ControlJSON.decoder().decode(VersionOnly.self, from: data))?
            .apiVersion
        var message = "lanchatd sent a response this lanchat cannot read (\(detail))"
        if let version, version != ControlAPI.version {
            message +=
                "; lanchatd speaks control API \(version), this lanchat speaks "
                + "\(ControlAPI.version): install matching versions"
        }
        return message
    }

    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "not valid JSON" }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing '\(path(context.codingPath + [key]))'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type at '\(path(context.codingPath))'"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "not valid JSON" : "bad value at '\(path(context.codingPath))'"
        @unknown default:
            return "undecodable"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
