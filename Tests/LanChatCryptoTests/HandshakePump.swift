import LanChatCore
import LanChatCrypto

/// Connects two `ChannelHandshake`s through in-memory byte queues, the way the transport
/// would through a socket: delivers in chosen chunk sizes, lets a test rewrite the bytes in
/// flight, answers identity checks, and records everything each side wrote.
struct HandshakePump: ~Copyable {
    var initiator: ChannelHandshake
    var responder: ChannelHandshake
    var initiatorChannel: EstablishedChannel?
    var responderChannel: EstablishedChannel?
    var initiatorFailure: HandshakeFailure?
    var responderFailure: HandshakeFailure?
    var initiatorIdentityChecks: [PeerKey] = []
    var responderIdentityChecks: [PeerKey] = []
    /// Everything each side wrote, in order.
    var wireToResponder: [UInt8] = []
    var wireToInitiator: [UInt8] = []
    /// Not yet delivered.
    private var queueToResponder: [UInt8] = []
    private var queueToInitiator: [UInt8] = []
    var accept: (PeerKey) -> Bool = { _ in true }
    /// Rewrites bytes on their way to the responder / initiator (offset in that direction).
    var tamperToResponder: (inout [UInt8], Int) -> Void = { _, _ in }
    var tamperToInitiator: (inout [UInt8], Int) -> Void = { _, _ in }
    /// The size of each delivered chunk; `Int.max` delivers everything at once.
    var chunkSize: () -> Int = { Int.max }

    init(initiator: consuming ChannelHandshake, responder: consuming ChannelHandshake) {
        self.initiator = initiator
        self.responder = responder
    }

    var isFinished: Bool {
        (initiatorChannel != nil || initiatorFailure != nil)
            && (responderChannel != nil || responderFailure != nil)
    }

    /// Runs until both sides finished or no bytes are left to deliver.
    mutating func run() {
        absorb(initiator.start(), initiatorSide: true)
        absorb(responder.start(), initiatorSide: false)
        var rounds = 0
        while !isFinished, !(queueToResponder.isEmpty && queueToInitiator.isEmpty),
            rounds < 1_000_000
        {
            rounds += 1
            if !queueToResponder.isEmpty, responderChannel == nil, responderFailure == nil {
                let count = min(max(chunkSize(), 1), queueToResponder.count)
                let chunk = Array(queueToResponder.prefix(count))
                queueToResponder.removeFirst(count)
                absorb(responder.receive(chunk), initiatorSide: false)
            } else {
                queueToResponder = []
            }
            if !queueToInitiator.isEmpty, initiatorChannel == nil, initiatorFailure == nil {
                let count = min(max(chunkSize(), 1), queueToInitiator.count)
                let chunk = Array(queueToInitiator.prefix(count))
                queueToInitiator.removeFirst(count)
                absorb(initiator.receive(chunk), initiatorSide: true)
            } else {
                queueToInitiator = []
            }
        }
    }

    private mutating func absorb(_ step: consuming HandshakeStep, initiatorSide: Bool) {
        switch consume step {
        case .needMore(let send):
            write(send, initiatorSide: initiatorSide)
        case .identityCheck(let remote, let send):
            write(send, initiatorSide: initiatorSide)
            let verdict = accept(remote)
            if initiatorSide {
                initiatorIdentityChecks.append(remote)
                absorb(initiator.resolveIdentity(accept: verdict), initiatorSide: true)
            } else {
                responderIdentityChecks.append(remote)
                absorb(responder.resolveIdentity(accept: verdict), initiatorSide: false)
            }
        case .established(let channel, let send):
            write(send, initiatorSide: initiatorSide)
            if initiatorSide {
                initiatorChannel = consume channel
            } else {
                responderChannel = consume channel
            }
        case .failed(let failure, let send):
            write(send, initiatorSide: initiatorSide)
            if initiatorSide { initiatorFailure = failure } else { responderFailure = failure }
        }
    }

    private mutating func write(_ bytes: [UInt8], initiatorSide: Bool) {
        guard !bytes.isEmpty else { return }
        var bytes = bytes
        if initiatorSide {
            tamperToResponder(&bytes, wireToResponder.count)
            wireToResponder += bytes
            queueToResponder += bytes
        } else {
            tamperToInitiator(&bytes, wireToInitiator.count)
            wireToInitiator += bytes
            queueToInitiator += bytes
        }
    }
}

extension HandshakePump {
    /// A pump between the vector identities with the vector's fixed ephemerals.
    static func vector(
        configuration initiatorConfiguration: HandshakeConfiguration = .current,
        responderConfiguration: HandshakeConfiguration = .current
    ) throws -> HandshakePump {
        HandshakePump(
            initiator: ChannelHandshake(
                role: .initiator, identity: try Keys.initiator(),
                configuration: initiatorConfiguration, fixedEphemeral: try Keys.initiatorEphemeral()
            ),
            responder: ChannelHandshake(
                role: .responder, identity: try Keys.responder(),
                configuration: responderConfiguration, fixedEphemeral: try Keys.responderEphemeral()
            ))
    }

    /// A pump between two fresh random identities.
    static func random() throws -> HandshakePump {
        HandshakePump(
            initiator: ChannelHandshake(role: .initiator, identity: try IdentityKeyPair.generate()),
            responder: ChannelHandshake(role: .responder, identity: try IdentityKeyPair.generate()))
    }
}
