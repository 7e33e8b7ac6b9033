import LanChatCore
import LanChatCrypto
import Testing

/// Both directions of an established channel, built by a real handshake in memory.
struct ChannelPair: ~Copyable {
    /// initiator → responder
    var sealer: FrameSealer
    var opener: FrameOpener
    /// responder → initiator
    var backSealer: FrameSealer
    var backOpener: FrameOpener

    static func make() throws -> ChannelPair {
        var pump = try HandshakePump.random()
        pump.run()
        let initiator = try requireSome(pump.initiatorChannel.take(), "initiator channel")
        let responder = try requireSome(pump.responderChannel.take(), "responder channel")
        let initiatorHalves = initiator.split()
        let responderHalves = responder.split()
        return ChannelPair(
            sealer: initiatorHalves.sealer, opener: responderHalves.opener,
            backSealer: responderHalves.sealer, backOpener: initiatorHalves.opener)
    }
}

/// What an opener made of some bytes: the events and the error, if any.
struct Delivery: Equatable {
    var events: [ChannelEvent] = []
    var error: ChannelError?
}

func deliver(_ bytes: [UInt8], to opener: inout FrameOpener, chunk: Int = .max) -> Delivery {
    var delivery = Delivery()
    var start = 0
    repeat {
        let end = min(bytes.count, start + max(chunk, 1))
        do throws(ChannelError) {
            try opener.receive(Array(bytes[start..<end]), into: &delivery.events)
        } catch {
            delivery.error = error
            return delivery
        }
        start = end
    } while start < bytes.count
    return delivery
}

/// Splits a sealed byte stream at its length prefixes (the frames are opaque here).
func frames(of stream: [UInt8]) -> [[UInt8]] {
    var result: [[UInt8]] = []
    var offset = 0
    while offset + 2 <= stream.count {
        let length = Int(stream[offset]) << 8 | Int(stream[offset + 1])
        let end = min(stream.count, offset + 2 + length)
        result.append(Array(stream[offset..<end]))
        offset = end
    }
    return result
}

/// A peer scripted by hand around the real Noise state, to send what an honest
/// `ChannelHandshake` never would (impostor keys, low-order points, bad payloads).
final class ManualPeer {
    let noise: NoiseHandshakeState

    init(initiator: Bool, identity: IdentityKeyPair, claimedStatic: [UInt8]? = nil) {
        noise = NoiseHandshakeState(isInitiator: initiator, identity: identity)
        noise.staticPublicOverrideForTesting = claimedStatic
    }

    /// Initiator: preamble ‖ u16(32) ‖ msg1.
    func firstFlight(preamble: [UInt8] = LCHTVector.preamble) throws -> [UInt8] {
        try noise.initialize(prologue: preamble)
        return preamble + [0, 32] + (try noise.writeMessage1(payload: []))
    }

    /// Responder: reads a first flight, returns u16 ‖ msg2 with `payload`.
    func message2(answering flight: [UInt8], payload: [UInt8] = LCHTVector.payload) throws
        -> [UInt8]
    {
        try noise.initialize(prologue: Array(flight.prefix(8)))
        _ = try noise.readMessage1(flight[10...])
        let message = try noise.writeMessage2(payload: payload)
        return [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }

    /// Initiator: reads u16 ‖ msg2, returns u16 ‖ msg3 with `payload`.
    func message3(answering framed: [UInt8], payload: [UInt8] = LCHTVector.payload) throws
        -> [UInt8]
    {
        _ = try noise.readMessage2(framed[2...])
        let message = try noise.writeMessage3(payload: payload)
        return [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
    }
}

extension HandshakeStep {
    /// Consumes the step into something `#expect` can compare.
    consuming func summary() -> StepSummary {
        switch consume self {
        case .needMore(let send): .needMore(send)
        case .identityCheck(let remote, let send): .identityCheck(remote, send)
        case .established(_, let send): .established(send)
        case .failed(let failure, let send): .failed(failure, send)
        }
    }
}

enum StepSummary: Equatable {
    case needMore([UInt8])
    case identityCheck(PeerKey, [UInt8])
    case established([UInt8])
    case failed(HandshakeFailure, [UInt8])

    var failure: HandshakeFailure? {
        if case .failed(let failure, _) = self { return failure }
        return nil
    }

    var sent: [UInt8] {
        switch self {
        case .needMore(let send), .identityCheck(_, let send), .established(let send),
            .failed(_, let send):
            send
        }
    }
}

/// The 7 small-order encodings libsodium blacklists (u = 0, 1, two order-8 points, p − 1,
/// and the non-canonical p and p + 1).
enum LowOrderPoints {
    static let all: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        Hex.decode("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        Hex.decode("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
        Hex.decode("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
        Hex.decode("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
        Hex.decode("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    ]

    static func isKeyRejection(_ failure: HandshakeFailure?) -> Bool {
        failure == HandshakeFailure(.lowOrderKey) || failure == HandshakeFailure(.nonCanonicalKey)
    }
}
