import LanChatCore
import LanChatFuzzSupport

/// `HandshakeMachine` (PROTOCOL.md §3.4–§3.8) with `TransparentNoise`, in either role, and
/// `HandshakePayload.parse` on its own.
///
/// Input: `options ‖ peer bytes`. Options bit 0: we are the initiator; bit 1: accept the
/// identity check; bits 2–3: the configuration (`MachineSetup`); bits 4–7: chunking. The
/// bytes are fed once in one piece and once in chunks; both runs must end the same way
/// (§7.5 "partial reads"). Each run checks the machine's verdicts against the payload rules,
/// and the whole peer input is also parsed as a payload and must survive a round trip.
enum MachineHarness {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let options = input.byte()
        let stream = input.rest()
        let setup = MachineSetup(options: options)
        let whole = MachineRun.run(setup, stream: stream, chunks: [stream[...]])
        let chunked = MachineRun.run(
            setup, stream: stream, chunks: fuzzChunks(stream, selector: max(options >> 4, 1)))
        fuzzCheck(
            whole == chunked,
            "in one piece: \(whole)\nin chunks:    \(chunked)")
        fuzzTrace("\(setup.role), accept \(setup.accept): \(whole)")
        PayloadRoundTrip.check(stream)
    }
}

/// Who we are and what we support, from the options byte.
struct MachineSetup {
    let role: HandshakeRole
    let accept: Bool
    let configuration: HandshakeConfiguration

    init(options: UInt8) {
        role = options & 1 == 1 ? .initiator : .responder
        accept = options & 2 == 2
        var configuration = HandshakeConfiguration.current
        switch (options >> 2) & 3 {
        case 1:
            // We implement v2 as well but speak v1 (a later build talking to v1 peers).
            configuration.maxVersion = 2
            configuration.supportedWireVersions = 1...2
        case 2:
            // We speak v2.
            configuration.maxVersion = 2
            configuration.wireVersion = 2
            configuration.supportedWireVersions = 1...2
        case 3:
            configuration.capabilities = 0x8000_0000_0000_0005
            configuration.extensions = [HandshakePayload.Extension(type: 7, value: [1, 2, 3])]
        default:
            break
        }
        self.configuration = configuration
    }
}

/// How one run ended, compared between the one-piece and the chunked delivery.
struct MachineRun: Equatable, CustomStringConvertible {
    /// The facts of an established handshake (its `leftover` depends on the chunking, so it
    /// is kept apart, joined with the bytes not yet fed, as `tail`).
    struct Established: Equatable {
        var remoteKey: PeerKey
        var sessionID: [UInt8]
        var remoteMaxVersion: UInt8
        var capabilities: UInt64
    }

    var sent: [UInt8] = []
    var checkedRemote: PeerKey?
    var established: Established?
    /// After success: the leftover plus every byte not fed to the machine.
    var tail: [UInt8] = []
    var failure: HandshakeFailure?

    var isFinished: Bool { established != nil || failure != nil }

    var description: String {
        "sent \(sent.count) bytes, identity \(checkedRemote.map { "\($0.id.prefix(8))" } ?? "-"), "
            + (established.map { _ in "established (\(tail.count) bytes after it)" }
                ?? failure.map { "\($0)" } ?? "unfinished")
    }

    static func run(
        _ setup: MachineSetup, stream: [UInt8], chunks: [ArraySlice<UInt8>]
    ) -> MachineRun {
        let noise = TransparentNoise()
        var machine = HandshakeMachine(
            role: setup.role, noise: noise, configuration: setup.configuration)
        var run = MachineRun()
        var checker = StepChecker(setup: setup, noise: noise, stream: stream)
        checker.absorb(machine.start(), into: &run, machine: &machine)
        var fed = 0
        for chunk in chunks {
            guard !run.isFinished else {
                if run.established != nil { run.tail += chunk }
                continue
            }
            fed += chunk.count
            checker.fed = fed
            let step = chunk.withUnsafeBytes { machine.receive($0) }
            fuzzCheck(
                machine.consumedBytes <= fed, "consumed \(machine.consumedBytes) of \(fed) bytes")
            checker.absorb(step, into: &run, machine: &machine)
        }
        if run.isFinished {
            let after = [UInt8(0x4C)].withUnsafeBytes { machine.receive($0) }
            guard case .failed(let failure, let send) = after, send.isEmpty,
                case .misuse = failure.code
            else { FuzzFailure.report("a finished handshake took more input: \(after)") }
        }
        return run
    }
}
