/// The input side of `HandshakeMachine`: reads each expected item with its bounds and runs the
/// per-message rules of PROTOCOL.md §3.5.
extension HandshakeMachine {
    /// The item each phase waits for; nil when the machine is not reading.
    var expectation: FrameReader.Expectation? {
        switch phase {
        case .awaitingPreamble: .fixed(WireLimits.preambleLength)
        case .awaitingMessage1: .prefixed(WireLimits.message1Bounds)
        case .awaitingMessage2: .prefixed(WireLimits.message2Bounds)
        case .awaitingVersionReject: .fixed(WireLimits.preambleLength - 2)
        case .awaitingMessage3: .prefixed(WireLimits.message3Bounds)
        case .awaitingRemoteHeader:
            .prefixed(WireLimits.streamHeaderLength...WireLimits.streamHeaderLength)
        case .notStarted, .awaitingDecision, .finished: nil
        }
    }

    var messageName: String {
        switch phase {
        case .awaitingMessage1: "msg1"
        case .awaitingMessage2: "msg2"
        case .awaitingMessage3: "msg3"
        default: "header frame"
        }
    }

    /// The outcome of one complete item: keep reading, or stop with a step.
    enum ItemResult {
        case proceed
        case stop(HandshakeMachineStep)
    }

    mutating func process(_ input: UnsafeRawBufferPointer, send initial: [UInt8])
        -> HandshakeMachineStep
    {
        var send = initial
        var offset = 0
        defer { consumedBytes += offset }
        while let expectation {
            let complete: Bool
            do {
                complete = try reader.read(input, offset: &offset, expecting: expectation)
            } catch {
                // "LC" where msg2's length belongs is the start of a VERSION_REJECT.
                if phase == .awaitingMessage2, error.length == 0x4C43 {
                    phase = .awaitingVersionReject
                    continue
                }
                let code = HandshakeFailure.Code.lengthOutOfBounds(
                    message: messageName, length: error.length)
                return fail(code, send: send)
            }
            guard complete else { return .needMore(send: send) }
            let item = Array(reader.item)
            switch handle(item[...], send: &send) {
            case .proceed:
                continue
            case .stop(let step):
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                switch step {
                case .identityCheck: held = Array(rest)
                case .established(let outcome, let send):
                    let full = HandshakeOutcome(
                        remoteKey: outcome.remoteKey, sessionID: outcome.sessionID,
                        remoteMaxVersion: outcome.remoteMaxVersion,
                        capabilities: outcome.capabilities, leftover: Array(rest))
                    offset = input.count
                    return .established(full, send: send)
                default: break
                }
                return step
            }
        }
        return .needMore(send: send)
    }

    mutating func handle(_ item: ArraySlice<UInt8>, send: inout [UInt8]) -> ItemResult {
        do {
            switch phase {
            case .awaitingPreamble: return handlePreamble(item, send: &send)
            case .awaitingMessage1:
                _ = try noise.readMessage1(item)
                let payload = ourPayload(maxVersion: configuration.maxVersion)
                let message2 = try noise.writeMessage2(payload: payload)
                send += ByteCoding.lengthPrefix(message2.count) + message2
                phase = .awaitingMessage3
                return .proceed
            case .awaitingMessage2:
                let (remote, payload) = try noise.readMessage2(item)
                return try decideAfterPeerStatic(remote: remote, payload: payload, send: send)
            case .awaitingVersionReject:
                guard let peerMax = Preamble.parseVersionReject([0x4C, 0x43] + item) else {
                    return .stop(
                        fail(.lengthOutOfBounds(message: "msg2", length: 0x4C43), send: send))
                }
                return .stop(fail(.versionRejected(peerMaxVersion: peerMax), send: send))
            case .awaitingMessage3:
                let (remote, payload) = try noise.readMessage3(item)
                return try decideAfterPeerStatic(remote: remote, payload: payload, send: send)
            case .awaitingRemoteHeader(let pending):
                try noise.acceptRemoteHeader(item)
                phase = .finished
                let outcome = HandshakeOutcome(
                    remoteKey: pending.remote, sessionID: noise.handshakeHash,
                    remoteMaxVersion: pending.remoteMaxVersion,
                    capabilities: pending.capabilities, leftover: [])
                return .stop(.established(outcome, send: send))
            case .notStarted, .awaitingDecision, .finished:
                return .stop(fail(.misuse("unexpected input"), send: send))
            }
        } catch {
            return .stop(fail(error.code, send: send))
        }
    }

    /// Responder step 2: magic, then versions, before any Noise processing.
    mutating func handlePreamble(_ item: ArraySlice<UInt8>, send: inout [UInt8]) -> ItemResult {
        switch Preamble.classify(item, supported: configuration.supportedWireVersions) {
        case .badMagic:
            return .stop(fail(.badMagic, send: send))
        case .unsupportedVersion(let version):
            let reject = Preamble.versionReject(maxVersion: configuration.maxVersion)
            return .stop(fail(.unsupportedVersion(version), send: send + reject))
        case .maxBelowWireVersion:
            return .stop(fail(.maxBelowWireVersion, send: send))
        case .accepted(let preamble):
            self.preamble = preamble
            do {
                try noise.initialize(prologue: preamble.bytes)
            } catch {
                return .stop(fail(error.code, send: send))
            }
            phase = .awaitingMessage1
            return .proceed
        }
    }

    /// After the peer's static key is proven: payload rules, version rules (§3.7), the
    /// self-connection check, then the caller's identity decision.
    mutating func decideAfterPeerStatic(remote: PeerKey, payload bytes: [UInt8], send: [UInt8])
        throws(HandshakeFailure) -> ItemResult
    {
        guard let preamble else { throw HandshakeFailure(.misuse("no preamble")) }
        let payload = try HandshakePayload.parse(bytes[...]).get()
        let initiatorMax: UInt8
        let responderMax: UInt8
        switch role {
        case .initiator:
            guard payload.maxVersion >= preamble.wireVersion else {
                throw HandshakeFailure(.badPayload("max_ver below the spoken version"))
            }
            initiatorMax = preamble.maxVersion
            responderMax = payload.maxVersion
        case .responder:
            guard payload.maxVersion == preamble.maxVersion else {
                throw HandshakeFailure(.maxVersionMismatch)
            }
            initiatorMax = preamble.maxVersion
            responderMax = configuration.maxVersion
        }
        guard min(initiatorMax, responderMax) <= preamble.wireVersion else {
            throw HandshakeFailure(.downgradeDetected)
        }
        guard !noise.isLocalStaticKey(remote) else { throw HandshakeFailure(.selfConnection) }
        let pending = Pending(
            remote: remote, remoteMaxVersion: payload.maxVersion,
            capabilities: payload.capabilities & configuration.capabilities)
        phase = .awaitingDecision(pending)
        return .stop(.identityCheck(remote: remote, send: send))
    }
}
