import Foundation
import Synchronization
import Testing

/// One connection to a daemon's control socket spoken as raw lines (lanchat-api(7)), to send
/// what `ControlClient` never would: pipelined requests, a request while a watch streams,
/// malformed JSON. Blocking calls run on a thread of their own, never on the two threads of
/// the cooperative pool, which the daemon under test needs.
final class RawControlConnection: Sendable {
    private let descriptor: Int32
    private let pending = Mutex<[UInt8]>([])

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func connect(to path: String) async throws -> RawControlConnection {
        try await onOwnThread {
            let descriptor = socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { throw RawSocketError(call: "socket") }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                Glibc.close(descriptor)
                throw RawSocketError("\(path) is too long for a Unix socket")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard connected == 0 else {
                let error = RawSocketError(call: "connect \(path)")
                Glibc.close(descriptor)
                throw error
            }
            return RawControlConnection(descriptor: descriptor)
        }
    }

    /// Sends `text` and a newline (several requests: lines joined by newlines, one write).
    func send(_ text: String) async throws {
        let descriptor = self.descriptor
        let bytes = Array(text.utf8) + [UInt8(ascii: "\n")]
        try await Self.onOwnThread {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard written > 0 else {
                    if errno == EINTR { continue }
                    throw RawSocketError(call: "send")
                }
                offset += written
            }
        }
    }

    /// The next line the daemon writes, as text; an error when none comes within `timeout`
    /// or the connection closes first.
    func receiveText(timeout: Duration = .seconds(10)) async throws -> String {
        guard case .line(let line) = await next(timeout: timeout) else {
            throw RawSocketError("no line within \(timeout), or the connection closed")
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The next line the daemon writes, decoded as a JSON object.
    func receive(timeout: Duration = .seconds(10)) async throws -> [String: Any] {
        let line = Data(try await receiveText(timeout: timeout).utf8)
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any]
        else { throw RawSocketError("not a JSON object: \(String(decoding: line, as: UTF8.self))") }
        return object
    }

    enum Outcome: Equatable, Sendable {
        case line([UInt8])
        /// End of file: the daemon closed the connection.
        case closed
        case timedOut
    }

    /// The next line, or the end of the connection, or nothing within `timeout`.
    func next(timeout: Duration) async -> Outcome {
        let descriptor = self.descriptor
        return await Self.onOwnThread { [self] in
            let deadline = ContinuousClock.now + timeout
            while true {
                let line: [UInt8]? = self.pending.withLock { buffer in
                    guard let end = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                    defer { buffer.removeSubrange(...end) }
                    return Array(buffer[..<end])
                }
                if let line { return .line(line) }
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return .timedOut }
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let millis = Int32(
                    clamping: left.components.seconds * 1000
                        + left.components.attoseconds / 1_000_000_000_000_000 + 1)
                if poll(&waiting, 1, millis) <= 0 { continue }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = chunk.withUnsafeMutableBytes {
                    read(descriptor, $0.baseAddress, $0.count)
                }
                guard count > 0 else { return .closed }
                self.pending.withLock { $0 += chunk[..<count] }
            }
        }
    }

    func close() { Glibc.close(descriptor) }

    private static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T)
        async throws -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    private static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}

struct RawSocketError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }

    /// A failed system call, with its errno text.
    init(call: String) { description = "\(call): \(String(cString: strerror(errno)))" }
}

/// What a response line says, for `#expect`: its id (`nil` for JSON null) and error code.
struct RawResponse {
    let object: [String: Any]

    init(_ object: [String: Any]) { self.object = object }

    var id: AnyHashable? { object["id"] is NSNull ? nil : object["id"] as? AnyHashable }
    var error: [String: Any]? { object["error"] as? [String: Any] }
    var errorCode: Int? { error?["code"] as? Int }
    var errorMessage: String { error?["message"] as? String ?? "" }
    var result: [String: Any]? { object["result"] as? [String: Any] }
    var method: String? { object["method"] as? String }
}
