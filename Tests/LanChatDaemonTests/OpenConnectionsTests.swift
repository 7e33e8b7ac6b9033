import FoundationEssentials
import LanChatControl
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import LanChatDaemon

/// The control socket's connection cap (`OpenConnections`): room for a new client is made
/// from idle connections first, then from busy ones whose client has closed its side; a new
/// client is refused only when every connection is busy for a client still there.
@Suite struct OpenConnectionsTests {
    @Test func roomIsMadeFromIdleConnectionsThenFromClientsThatLeft() throws {
        let open = OpenConnections(limit: 2)
        let (first, second) = (EmbeddedChannel(), EmbeddedChannel())
        let secondClosed = Mutex(false)
        second.closeFuture.whenComplete { _ in secondClosed.withLock { $0 = true } }
        let firstSlot = try #require(open.take(for: first))
        let secondSlot = try #require(open.take(for: second))
        firstSlot.busy()
        secondSlot.busy()
        #expect(open.take(for: EmbeddedChannel()) == nil, "every one busy, clients there")

        // The second's client closes its side while its request (a long wait) is answered:
        // the pipeline tells its slot.
        try second.pipeline.syncOperations.addHandler(InputEndWatcher(slot: secondSlot))
        second.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(secondSlot.clientEnded && !firstSlot.clientEnded)

        #expect(open.take(for: EmbeddedChannel()) != nil)
        second.embeddedEventLoop.run()
        #expect(secondClosed.withLock { $0 }, "the connection whose client left made room")
        #expect(open.openCount == 2)
    }

    /// The client whose connection is closed for room reads why first: one error line, id
    /// null, code `unavailable`, as a connection refused when all are busy is told.
    @Test func anEvictedClientIsToldWhyBeforeItsConnectionCloses() throws {
        let open = OpenConnections(limit: 1)
        let idle = EmbeddedChannel()
        let closed = Mutex(false)
        idle.closeFuture.whenComplete { _ in closed.withLock { $0 = true } }
        _ = try #require(open.take(for: idle))
        #expect(open.take(for: EmbeddedChannel()) != nil)
        idle.embeddedEventLoop.run()
        #expect(closed.withLock { $0 })

        let written = try #require(try idle.readOutbound(as: ByteBuffer.self), "no line written")
        let bytes = Array(written.readableBytesView)
        #expect(bytes.last == UInt8(ascii: "\n") && bytes.filter { $0 == 0x0A }.count == 1)
        let response = try ControlJSON.decoder().decode(
            RPCResponse<NoParams>.self, from: Data(bytes.dropLast()))
        #expect(response.id == nil && response.result == nil)
        let error = try #require(response.error)
        #expect(error.code == ControlError.unavailable("").rpcCode)
        #expect(error.message.contains("to make room"), "\(error.message)")
        #expect(try idle.readOutbound(as: ByteBuffer.self) == nil, "one line only")
    }
}
