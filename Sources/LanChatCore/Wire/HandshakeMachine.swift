/// One connection's LCHT/1 handshake as "event in → actions out" (PROTOCOL.md §3.4–§3.8):
/// preamble, msg1–msg3 with their length bounds, payload rules, version checks, the identity
/// decision point and the exchange of the two secretstream header frames.
///
/// Synchronous and I/O-free: the caller feeds bytes in any chunking and writes what each step
/// returns; deadlines are the caller's. Move-only because it owns its Noise state; used from
/// one task at a time.
public struct HandshakeMachine<Noise: NoiseHandshakeOperations>: ~Copyable {
    enum Phase: Equatable {
        case notStarted
        case awaitingPreamble
        case awaitingMessage1
        case awaitingMessage2
        /// The initiator read "LC" where msg2's length belongs: a VERSION_REJECT is arriving.
        case awaitingVersionReject
        case awaitingMessage3
        case awaitingDecision(Pending)
        case awaitingRemoteHeader(Pending)
        case finished
    }

    /// What is known about the peer between its static key and the end of the handshake.
    struct Pending: Equatable {
        var remote: PeerKey
        var remoteMaxVersion: UInt8
        var capabilities: UInt64
    }

    /// Bytes a peer may send while we wait for the identity decision (msg3, header and the
    /// first data frames of an eager initiator fit easily).
    static var earlyDataLimit: Int { 256 * 1024 }

    public let role: HandshakeRole
    let configuration: HandshakeConfiguration
    let noise: Noise
    var phase: Phase = .notStarted
    var preamble: Preamble?
    var reader = FrameReader()
    /// Input received but not yet processed (only while the identity decision is pending).
    var held: [UInt8] = []
    /// Test hook: input bytes consumed by the parsers so far.
    package internal(set) var consumedBytes = 0

    public init(role: HandshakeRole, noise: Noise, configuration: HandshakeConfiguration = .current)
    {
        self.role = role
        self.noise = noise
        self.configuration = configuration
    }

    /// Initiator: initialises Noise with the preamble as prologue and returns the 42-byte first
    /// flight. Responder: returns nothing and waits for the preamble.
    public mutating func start() -> HandshakeMachineStep {
        guard phase == .notStarted else { return fail(.misuse("start called twice"), send: []) }
        guard role == .initiator else {
            phase = .awaitingPreamble
            return .needMore(send: [])
        }
        let preamble = Preamble(
            wireVersion: configuration.wireVersion, maxVersion: configuration.maxVersion)
        self.preamble = preamble
        do {
            try noise.initialize(prologue: preamble.bytes)
            let message1 = try noise.writeMessage1(payload: [])
            phase = .awaitingMessage2
            return .needMore(
                send: preamble.bytes + ByteCoding.lengthPrefix(message1.count) + message1)
        } catch {
            return fail(error.code, send: [])
        }
    }

    /// Feeds received bytes. While an identity decision is pending they are only held.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> HandshakeMachineStep {
        switch phase {
        case .notStarted, .finished:
            return fail(.misuse("receive outside the handshake"), send: [])
        case .awaitingDecision:
            guard held.count + bytes.count <= Self.earlyDataLimit else {
                return fail(.tooMuchEarlyData, send: [])
            }
            held += bytes
            return .needMore(send: [])
        default:
            guard held.isEmpty else {
                held += bytes
                return processHeld(send: [])
            }
            return process(bytes, send: [])
        }
    }

    /// Answers `.identityCheck`. Accepting writes msg3 (initiator) and our header frame;
    /// refusing ends the handshake with nothing more sent (§3.8).
    public mutating func resolveIdentity(accept: Bool) -> HandshakeMachineStep {
        guard case .awaitingDecision(let pending) = phase, let preamble else {
            return fail(.misuse("no identity decision pending"), send: [])
        }
        guard accept else { return fail(.identityRejected, send: []) }
        var send: [UInt8] = []
        do {
            if role == .initiator {
                let payload = ourPayload(maxVersion: preamble.maxVersion)
                let message3 = try noise.writeMessage3(payload: payload)
                send += ByteCoding.lengthPrefix(message3.count) + message3
            }
            let header = try noise.startTransport()
            send += ByteCoding.lengthPrefix(header.count) + header
        } catch {
            return fail(error.code, send: [])
        }
        phase = .awaitingRemoteHeader(pending)
        return processHeld(send: send)
    }

    /// Hands over the read buffer, so the opener reuses the connection's one 65 535-byte buffer.
    public mutating func takeReader() -> FrameReader {
        var taken = FrameReader()
        swap(&taken, &reader)
        taken.reset()
        return taken
    }

    mutating func processHeld(send: [UInt8]) -> HandshakeMachineStep {
        let input = held
        held = []
        return input.withUnsafeBytes { process($0, send: send) }
    }

    mutating func fail(_ code: HandshakeFailure.Code, send: [UInt8]) -> HandshakeMachineStep {
        phase = .finished
        held = []
        reader.reset()
        noise.wipe()
        return .failed(HandshakeFailure(code), send: send)
    }

    func ourPayload(maxVersion: UInt8) -> [UInt8] {
        HandshakePayload(
            maxVersion: maxVersion, capabilities: configuration.capabilities,
            extensions: configuration.extensions
        ).bytes
    }
}
