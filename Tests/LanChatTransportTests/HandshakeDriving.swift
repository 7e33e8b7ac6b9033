import LanChatCore
import LanChatCrypto
import NIOCore

/// Runs our side of an initiator handshake by hand over a raw connection, so tests can
/// replay, tamper with, or stop at any message. `written` gets every chunk we sent.
func handshakeAsInitiator(
    identity: IdentityKeyPair,
    iterator: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
    outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, written: inout [[UInt8]]
) async throws -> ChannelHalves? {
    var handshake = ChannelHandshake(role: .initiator, identity: identity)
    var step = handshake.start()
    while true {
        switch consume step {
        case .needMore(let send):
            if !send.isEmpty {
                written.append(send)
                try await outbound.write(bytes: send)
            }
        case .identityCheck(_, let send):
            if !send.isEmpty { try await outbound.write(bytes: send) }
            step = handshake.resolveIdentity(accept: true)
            continue
        case .established(let channel, let send):
            written.append(send)
            try await outbound.write(bytes: send)
            return channel.split()
        case .failed:
            return nil
        }
        guard let chunk = try await iterator.next() else { return nil }
        step = handshake.receive(Array(chunk.readableBytesView))
    }
}
