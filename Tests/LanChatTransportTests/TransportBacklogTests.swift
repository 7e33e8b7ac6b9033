import LanChatCore
import LanChatCrypto
import NIOCore
import Testing

@testable import LanChatTransport

/// PROTOCOL.md §4.5: the outbound queue stays bounded. MSGs wait for buffer space; the small
/// protocol messages (`sendControl`) never do, so a peer that keeps its session up and reads
/// nothing could make them pile up without end (found by review).
@Suite("A peer that reads nothing")
struct TransportBacklogTests {
    @Test func isClosedOnceWhatWaitsForItPassesTheHardLimit() async throws {
        var configuration = fastConfiguration()
        configuration.writeBufferLowWaterMark = 16 << 10
        configuration.writeBufferHighWaterMark = 64 << 10
        configuration.outboundHardLimit = 256 << 10
        let server = try await RunningListener.start(configuration: configuration)
        defer { Task { await server.stop() } }
        let identity = try IdentityKeyPair.generate()
        // About 8 KiB sealed; the kernel's buffers and the raw client's read-ahead take some
        // megabytes before anything waits in the server's channel.
        let members = try (0..<256).map { _ in try IdentityKeyPair.generate().publicKey }
        let large = AppMessage.group(
            GroupUpdate(id: GroupID.random(), version: 1, name: "backlog", members: members))
        var written: [[UInt8]] = []
        var sentBytes = 0
        _ = try await RawConnection.connect(to: server.endpoint).run(readToEnd: false) {
            iterator, outbound in
            guard
                try await handshakeAsInitiator(
                    identity: identity, iterator: &iterator, outbound: outbound,
                    written: &written) != nil
            else {
                Issue.record("handshake failed")
                return
            }
            let session = try #require(await server.delegate.openedSession())
            // From here on the client reads nothing. (The calls only queue the writes on the
            // event loop; 32 MiB is well past what the kernel and the client take.)
            while sentBytes < 32 << 20, !Self.closed(server.delegate.events) {
                session.sendControl([large])
                sentBytes += 8 << 10
                await Task.yield()
            }
            try await until("the session closed", timeout: .seconds(10)) {
                Self.closed(server.delegate.events)
            }
        }
        let end = server.delegate.events.compactMap { event -> SessionEnd? in
            if case .closed(_, let end) = event { end } else { nil }
        }.first
        guard case .failed(let error) = end else {
            Issue.record("not closed for its backlog: \(String(describing: end))")
            return
        }
        #expect(error.description.contains("the peer reads nothing"), "\(error)")
    }

    static func closed(_ events: [RecordingDelegate.Event]) -> Bool {
        events.contains { if case .closed = $0 { true } else { false } }
    }
}
