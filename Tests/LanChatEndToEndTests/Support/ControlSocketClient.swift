import Foundation
import Synchronization

/// One connection to a daemon's control socket, spoken directly as newline-delimited JSON
/// (lanchat-api(7)) rather than through `lanchat`, to send what `lanchat` never would.
/// Blocking calls run on their own thread (`offload`); one task uses a client at a time.
final class ControlSocketClient: Sendable {
    private let descriptor: Int32
    private let pending = PendingBytes()

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func connect(to path: String) async throws -> ControlSocketClient {
        try await offload {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw SocketError("socket") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                Glibc.close(descriptor)
                throw SocketError(description: "\(path) is too long for a Unix socket")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            guard withSocketAddress(address, { Glibc.connect(descriptor, $0, $1) }) == 0 else {
                let error = SocketError("connect \(path)")
                Glibc.close(descriptor)
                throw error
            }
            return ControlSocketClient(descriptor: descriptor)
        }
    }

    /// Sends `bytes` followed by a newline.
    func sendLine(_ bytes: [UInt8]) async throws {
        let descriptor = self.descriptor
        try await offload { try writeAll(descriptor, bytes + [UInt8(ascii: "\n")]) }
    }

    func sendLine(_ text: String) async throws { try await sendLine(Array(text.utf8)) }

    /// The next response line decoded as a JSON object, or an error naming what came
    /// instead (nothing before the deadline, a closed connection, not JSON).
    func receiveObject(timeout: Duration = .seconds(5)) async throws -> [String: Any] {
        let descriptor = self.descriptor
        let pending = self.pending
        let line: [UInt8]? = await offload {
            let clock = ContinuousClock()
            let deadline = clock.now + timeout
            while true {
                if let line = pending.takeLine() { return line }
                let left = deadline - clock.now
                guard left > .zero,
                    case .data(let bytes) = readSome(descriptor, timeout: left)
                else { return nil }
                pending.append(bytes)
            }
        }
        guard let line else {
            throw SocketError(description: "no response line within \(timeout) (or closed)")
        }
        let object = try? JSONSerialization.jsonObject(with: Data(line))
        guard let object = object as? [String: Any] else {
            throw SocketError(
                description: "response is not a JSON object: "
                    + String(decoding: line, as: UTF8.self))
        }
        return object
    }

    func close() { Glibc.close(descriptor) }
}

/// Bytes read past the end of the last line, kept for the next `receiveObject`.
private final class PendingBytes: Sendable {
    private let buffer = Mutex<[UInt8]>([])

    func append(_ bytes: [UInt8]) { buffer.withLock { $0 += bytes } }

    func takeLine() -> [UInt8]? {
        buffer.withLock { buffer in
            guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = Array(buffer[..<end])
            buffer.removeSubrange(...end)
            return line
        }
    }
}
