import NIOCore
import NIOEmbedded
import Testing

@testable import LanChatDaemon

/// The control socket's connection cap (`OpenConnections`): room for a new client is made
/// from idle connections first, then from busy ones whose client has closed its side; a new
/// client is refused only when every connection is busy for a client still there.
@Suite struct OpenConnectionsTests {
    @Test func roomIsMadeFromIdleConnectionsThenFromClientsThatLeft() throws {
        let open = OpenConnections(limit: 2)
        let (first, second) = (EmbeddedChannel(), EmbeddedChannel())
        var secondClosed = false
        second.closeFuture.whenComplete { _ in secondClosed = true }
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
        #expect(secondClosed, "the connection whose client left made room")
        #expect(open.openCount == 2)
    }
}
