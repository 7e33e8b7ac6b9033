import LanChatCore

/// Drives one connection's LCHT/1 handshake (initiator or responder) on libsodium, including
/// the exchange of the two secretstream header frames (PROTOCOL.md §3–§4.1).
///
/// Synchronous and byte-oriented: the caller (the transport) owns sockets and deadlines, feeds
/// what it reads and writes what each step returns. Move-only: it owns the handshake secrets,
/// which are wiped on failure and at Split(). `@unchecked Sendable` because a `~Copyable` value
/// is moved, never shared; use it from one task at a time.
public struct ChannelHandshake: ~Copyable, @unchecked Sendable {
    private var machine: HandshakeMachine<NoiseHandshakeState>
    private let noise: NoiseHandshakeState

    public init(role: HandshakeRole, identity: IdentityKeyPair) {
        self.init(role: role, identity: identity, configuration: .current, fixedEphemeral: nil)
    }

    /// The current version announcing `configuration`'s capability bits.
    public init(
        role: HandshakeRole, identity: IdentityKeyPair, configuration: HandshakeConfiguration
    ) {
        self.init(role: role, identity: identity, configuration: configuration, fixedEphemeral: nil)
    }

    /// Test hook: a chosen configuration (other versions) and a fixed ephemeral key (vectors).
    package init(
        role: HandshakeRole, identity: IdentityKeyPair, configuration: HandshakeConfiguration,
        fixedEphemeral: IdentityKeyPair?
    ) {
        let noise = NoiseHandshakeState(
            isInitiator: role == .initiator, identity: identity, fixedEphemeral: fixedEphemeral)
        self.noise = noise
        machine = HandshakeMachine(role: role, noise: noise, configuration: configuration)
    }

    /// Call once, first. Initiator: `.needMore(send:)` with the 42-byte first flight.
    /// Responder: `.needMore(send: [])`. `.failed` only if libsodium cannot initialise.
    public mutating func start() -> HandshakeStep {
        if case .failure(let error) = Result(catching: { () throws(SodiumError) in
            try Sodium.initialize()
        }) {
            return .failed(HandshakeFailure(.cryptoFailure(error.description)), send: [])
        }
        return convert(machine.start())
    }

    /// Feeds bytes as they arrive, in any chunking.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> HandshakeStep {
        convert(machine.receive(bytes))
    }

    /// The same, from an array.
    public mutating func receive(_ bytes: [UInt8]) -> HandshakeStep {
        let step = bytes.withUnsafeBytes { machine.receive($0) }
        return convert(step)
    }

    /// Answers `.identityCheck`: `accept: false` ends the handshake with nothing more sent.
    public mutating func resolveIdentity(accept: Bool) -> HandshakeStep {
        convert(machine.resolveIdentity(accept: accept))
    }

    /// Test hook: input bytes the parsers consumed (to show a body was never read).
    package var consumedBytesForTesting: Int { machine.consumedBytes }
    /// Test hook: true once a Noise state exists (it must not for a rejected preamble).
    package var noiseInitializedForTesting: Bool { !noise.handshakeHash.isEmpty }
    private mutating func convert(_ step: HandshakeMachineStep) -> HandshakeStep {
        switch step {
        case .needMore(let send): return .needMore(send: send)
        case .identityCheck(let remote, let send): return .identityCheck(remote: remote, send: send)
        case .failed(let failure, let send): return .failed(failure, send: send)
        case .established(let outcome, let send):
            guard let (outgoing, incoming) = noise.takeStreams() else {
                return .failed(HandshakeFailure(.misuse("streams missing")), send: [])
            }
            let channel = EstablishedChannel(
                outcome: outcome, outgoing: outgoing, incoming: incoming,
                reader: machine.takeReader())
            return .established(channel, send: send)
        }
    }
}
