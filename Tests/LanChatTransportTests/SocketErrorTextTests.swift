import Glibc
import NIOCore
import Testing

@testable import LanChatTransport

/// A socket's error in the log (found by QA: NIO's "read(descriptor:pointer:size:):
/// Connection reset by peer) (errno: 104)").
@Suite struct SocketErrorTextTests {
    @Test func aResetIsAConnectionLost() {
        let error = SecureSessionHandler.socketError(
            IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)"))
        #expect(error.kind == .connectionLost)
        #expect(error.description == "connection lost (reset by the peer), possibly truncated")
    }

    @Test func anotherIsSaidInTheSystemsWords() {
        let error = SecureSessionHandler.socketError(
            IOError(errnoCode: EPIPE, reason: "write(descriptor:pointer:size:)"))
        #expect(error.kind == .channelFailed)
        #expect(error.description == "socket error: Broken pipe")
    }
}
