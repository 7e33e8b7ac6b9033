import LanChatCore
import LanChatFuzzSupport

/// Checks each step of one machine run against the rules it claims to have applied.
struct StepChecker {
    let setup: MachineSetup
    let noise: TransparentNoise
    let stream: [UInt8]
    /// How many bytes of `stream` the machine has been given so far.
    var fed = 0
    var payload: HandshakePayload?

    mutating func absorb(
        _ step: HandshakeMachineStep, into run: inout MachineRun,
        machine: inout HandshakeMachine<TransparentNoise>
    ) {
        switch step {
        case .needMore(let send):
            run.sent += send
        case .identityCheck(let remote, let send):
            run.sent += send
            fuzzCheck(run.checkedRemote == nil, "a second identity check")
            run.checkedRemote = remote
            checkIdentityCheck(remote)
            absorb(machine.resolveIdentity(accept: setup.accept), into: &run, machine: &machine)
        case .established(let outcome, let send):
            run.sent += send
            run.established = MachineRun.Established(
                remoteKey: outcome.remoteKey, sessionID: outcome.sessionID,
                remoteMaxVersion: outcome.remoteMaxVersion, capabilities: outcome.capabilities)
            run.tail = outcome.leftover
            checkEstablished(outcome, remote: run.checkedRemote)
        case .failed(let failure, let send):
            run.sent += send
            run.failure = failure
            checkFailure(failure, send: send)
        }
    }

    /// The machine only asks about a peer whose payload follows §3.4 and §3.7.
    mutating func checkIdentityCheck(_ remote: PeerKey) {
        fuzzCheck(!noise.isLocalStaticKey(remote), "our own key reached the identity check")
        guard let bytes = noise.receivedPayload,
            case .success(let parsed) = HandshakePayload.parse(bytes[...])
        else {
            FuzzFailure.report("identity check after a payload the parser rejects")
        }
        payload = parsed
        guard let prologue = noise.prologue, prologue.count == 8 else {
            FuzzFailure.report("identity check without a preamble")
        }
        let wire = prologue[4]
        let initiatorMax = prologue[5]
        switch setup.role {
        case .responder:
            fuzzCheck(parsed.maxVersion == initiatorMax, "msg3 max_ver differs from the preamble")
        case .initiator:
            fuzzCheck(parsed.maxVersion >= wire, "msg2 max_ver below the spoken version")
        }
        let responderMax =
            setup.role == .responder ? setup.configuration.maxVersion : parsed.maxVersion
        fuzzCheck(min(initiatorMax, responderMax) <= wire, "a downgrade was not detected")
    }

    func checkEstablished(_ outcome: HandshakeOutcome, remote: PeerKey?) {
        fuzzCheck(setup.accept && remote == outcome.remoteKey, "established without acceptance")
        fuzzCheck(!noise.wiped, "an established handshake wiped its state")
        guard let payload else { FuzzFailure.report("established without a payload") }
        fuzzCheck(
            outcome.capabilities == payload.capabilities & setup.configuration.capabilities
                && outcome.remoteMaxVersion == payload.maxVersion
                && outcome.sessionID == noise.handshakeHash,
            "established with wrong facts: \(outcome)")
        let given = stream.prefix(fed)
        fuzzCheck(
            outcome.leftover.count <= given.count
                && given.suffix(outcome.leftover.count).elementsEqual(outcome.leftover),
            "the leftover is not the tail of the input given so far")
    }

    func checkFailure(_ failure: HandshakeFailure, send: [UInt8]) {
        fuzzCheck(noise.wiped, "\(failure) left the handshake state unwiped")
        switch failure.code {
        case .unsupportedVersion:
            fuzzCheck(
                setup.role == .responder
                    && send == Preamble.versionReject(maxVersion: setup.configuration.maxVersion),
                "unsupported version without a VERSION_REJECT: \(fuzzHex(send))")
        case .identityRejected:
            fuzzCheck(!setup.accept, "an accepted identity was rejected")
        case .versionRejected:
            fuzzCheck(setup.role == .initiator, "a responder read a VERSION_REJECT")
        case .selfConnection:
            // Decided after the payload rules, on a payload that passed them.
            guard let bytes = noise.receivedPayload,
                case .success = HandshakePayload.parse(bytes[...])
            else { FuzzFailure.report("self-connection decided before the payload was checked") }
        default:
            break
        }
    }
}

/// `HandshakePayload.parse` alone: whatever it accepts has the documented shape and comes
/// back unchanged from `bytes` (the reserved bytes are the only thing not kept).
enum PayloadRoundTrip {
    static func check(_ bytes: [UInt8]) {
        guard case .success(let payload) = HandshakePayload.parse(bytes[...]) else { return }
        fuzzCheck(
            (WireLimits.payloadMinimum...WireLimits.payloadMaximum).contains(bytes.count)
                && bytes[0] == HandshakePayload.format && payload.maxVersion >= 1,
            "payload accepted outside its rules: \(fuzzHex(bytes))")
        let types = payload.extensions.map(\.type)
        fuzzCheck(Set(types).count == types.count, "duplicate TLV accepted: \(fuzzHex(bytes))")
        var expected = bytes
        expected[2] = 0
        expected[3] = 0
        fuzzCheck(
            payload.bytes == expected,
            "payload \(fuzzHex(bytes)) re-encodes as \(fuzzHex(payload.bytes))")
        fuzzCheck(
            HandshakePayload.parse(payload.bytes[...]) == .success(payload),
            "a re-encoded payload parses differently")
    }
}
