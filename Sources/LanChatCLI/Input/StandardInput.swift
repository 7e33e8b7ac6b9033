import Dispatch
import LanChatClient
import LanChatControl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads standard input for `lanchat send` without blocking a Swift-concurrency thread: the
/// blocking `read` calls run on a dispatch queue and the result comes back through a
/// continuation.
package enum StandardInput {
    /// Reads `fd` to end of file as one message. Stops early, with `badInput`, once more than
    /// the message limit (plus room for trailing line ends) has arrived: the message would be
    /// refused anyway, and a runaway producer must not fill memory.
    package static func readMessage(from fd: Int32) async throws(ControlError) -> String {
        let limit = MessageText.maxBytes + 1024
        let outcome = await withCheckedContinuation { continuation in
            DispatchQueue(label: "lanchat.stdin").async {
                continuation.resume(returning: readAll(fd, limit: limit))
            }
        }
        switch outcome {
        case .failure(let error): throw error
        case .success(let bytes) where bytes.count > limit:
            throw .badInput(
                "standard input is over \(MessageText.grouped(MessageText.maxBytes)) bytes, the "
                    + "limit for one message; --lines sends each line as a message")
        case .success(let bytes):
            return try MessageText.fromStandardInput(bytes)
        }
    }

    /// Blocking; runs on a dispatch queue. Returns at most `limit + 1` bytes.
    static func readAll(_ fd: Int32, limit: Int) -> Result<[UInt8], ControlError> {
        if fd == 0 && standardInputWasClosed {
            return .failure(.badInput(standardInputClosedReason))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while bytes.count <= limit {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                break
            } else if errno != EINTR {
                return .failure(
                    .badInput("cannot read standard input: \(errnoDescription(errno))"))
            }
        }
        return .success(bytes)
    }
}
