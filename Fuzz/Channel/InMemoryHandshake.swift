import LanChatCore
import LanChatCrypto
import LanChatFuzzSupport

/// Two channels that completed a real LCHT/1 handshake in memory (no sockets), and the bytes
/// each side wrote on the way. Move-only because it owns both channels.
@frozen package struct EstablishedPair: ~Copyable {
    package var initiator: EstablishedChannel
    package var responder: EstablishedChannel
    /// Everything the initiator wrote (first flight, msg3, its header frame), in order.
    package var toResponder: [UInt8]
    package var toInitiator: [UInt8]
}

/// One side of the in-memory handshake and what became of it.
private struct HandshakeSide: ~Copyable {
    var handshake: ChannelHandshake
    var channel: EstablishedChannel?
    var failure: HandshakeFailure?
    var outbox: [UInt8] = []

    init(_ handshake: consuming ChannelHandshake) {
        self.handshake = handshake
    }

    var isDone: Bool { channel != nil || failure != nil }

    mutating func absorb(_ step: consuming HandshakeStep) {
        switch consume step {
        case .needMore(let send):
            outbox += send
        case .identityCheck(_, let send):
            outbox += send
            absorb(handshake.resolveIdentity(accept: true))
        case .established(let channel, let send):
            outbox += send
            self.channel = consume channel
        case .failed(let failure, let send):
            outbox += send
            self.failure = failure
        }
    }
}

/// Runs ChannelHandshake against ChannelHandshake, delivering every byte at once, both sides
/// accepting each other. Used on libFuzzer's thread only.
package enum InMemoryHandshake {
    /// The vector identities with fixed ephemerals: deterministic up to the random stream
    /// headers. Reports a harness failure if the handshake does not complete: it always must.
    package static func vectorPair() -> EstablishedPair {
        let keys = VectorKeys.shared
        var initiator = HandshakeSide(keys.initiatorHandshake())
        var responder = HandshakeSide(keys.responderHandshake())
        var toResponder: [UInt8] = []
        var toInitiator: [UInt8] = []
        initiator.absorb(initiator.handshake.start())
        responder.absorb(responder.handshake.start())
        var rounds = 0
        while !(initiator.isDone && responder.isDone), rounds < 16 {
            rounds += 1
            let forResponder = initiator.outbox
            initiator.outbox = []
            toResponder += forResponder
            if !forResponder.isEmpty, !responder.isDone {
                responder.absorb(responder.handshake.receive(forResponder))
            }
            let forInitiator = responder.outbox
            responder.outbox = []
            toInitiator += forInitiator
            if !forInitiator.isEmpty, !initiator.isDone {
                initiator.absorb(initiator.handshake.receive(forInitiator))
            }
        }
        toResponder += initiator.outbox
        toInitiator += responder.outbox
        guard let initiatorChannel = initiator.channel.take(),
            let responderChannel = responder.channel.take()
        else {
            FuzzFailure.report(
                "the in-memory vector handshake did not complete: initiator \(String(describing: initiator.failure)), responder \(String(describing: responder.failure))"
            )
        }
        return EstablishedPair(
            initiator: initiatorChannel, responder: responderChannel, toResponder: toResponder,
            toInitiator: toInitiator)
    }
}
