import LanChatCore
import LanChatCrypto
import LanChatFuzzChannel
import LanChatFuzzSupport

/// The responder side of `ChannelHandshake` (PROTOCOL.md §3.4–§3.8) on real libsodium, fed
/// whatever a peer might send: preamble, length prefixes, msg1, msg3, the header frame and
/// then transport frames, in chunks. It uses the vector's identity and fixed ephemeral, so it
/// is deterministic: seeds recorded from a real initiator complete the handshake, and the
/// fuzzer mutates from there.
///
/// Input: `options ‖ bytes`; options bit 0 accepts the identity check, bits 1…7 choose the
/// chunking. Properties: msg2 for the vector's first flight is the vector's msg2; nothing is
/// established without an accepted identity check; the only key that can pass msg3 is the
/// vector initiator's; a failure sends nothing but, for an unsupported version, the
/// VERSION_REJECT; a finished handshake refuses more input; after it, the opener and the
/// application codec take the rest without trapping.
enum HandshakeHarness {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let options = input.byte()
        let stream = input.rest()
        var run = ResponderRun(accept: options & 1 == 1)
        for chunk in fuzzChunks(stream, selector: options >> 1) {
            run.feed(Array(chunk))
        }
        run.finish()
        fuzzTrace(
            "sent \(run.sent.count) bytes, \(run.identityChecks) identity checks, "
                + "\(run.failure.map { "\($0)" } ?? "no handshake failure"), "
                + "\(run.events.count) events\(run.openerFailed ? ", opener failed" : "")")
        checkKnownAnswer(stream: stream, sent: run.sent)
    }

    /// The responder is deterministic: the vector's first flight must get the vector's msg2.
    static func checkKnownAnswer(stream: [UInt8], sent: [UInt8]) {
        guard stream.starts(with: VectorKeys.firstFlight) else { return }
        let expected = [0, 108] + VectorKeys.message2
        fuzzCheck(
            sent.starts(with: expected),
            "the vector's first flight was answered with \(fuzzHex(sent.prefix(110)))")
    }
}

/// One responder's life: the handshake, then the channel's opener. Move-only because it
/// holds them; used on libFuzzer's thread only.
struct ResponderRun: ~Copyable {
    let accept: Bool
    var handshake = VectorKeys.shared.responderHandshake()
    var opener: FrameOpener?
    var failure: HandshakeFailure?
    var openerFailed = false
    var identityChecks = 0
    var sent: [UInt8] = []
    var events: [ChannelEvent] = []

    init(accept: Bool) {
        self.accept = accept
        guard case .needMore(let send) = handshake.start(), send.isEmpty else {
            FuzzFailure.report("a responder's start did not wait quietly for the preamble")
        }
    }

    mutating func feed(_ chunk: [UInt8]) {
        if failure != nil || openerFailed { return }
        if opener != nil {
            open(chunk)
            return
        }
        absorb(handshake.receive(chunk))
    }

    mutating func absorb(_ step: consuming HandshakeStep) {
        switch consume step {
        case .needMore(let send):
            sent += send
        case .identityCheck(let remote, let send):
            sent += send
            identityChecks += 1
            fuzzCheck(identityChecks == 1, "a second identity check")
            fuzzCheck(
                remote == VectorKeys.shared.initiator.publicKey,
                "msg3 proved a key no seed holds the secret of: \(remote)")
            absorb(handshake.resolveIdentity(accept: accept))
        case .established(let channel, let send):
            sent += send
            fuzzCheck(
                identityChecks == 1 && accept, "established without an accepted identity check")
            fuzzCheck(channel.remoteKey == VectorKeys.shared.initiator.publicKey, "wrong peer")
            let halves = channel.split()
            opener = consume halves.opener
            open([])  // Bytes that came with the header frame are held by the opener.
        case .failed(let failure, let send):
            self.failure = failure
            sent += send
            let reject = Preamble.versionReject(maxVersion: WireLimits.maxVersion)
            if case .unsupportedVersion = failure.code {
                fuzzCheck(send == reject, "unsupported version answered with \(fuzzHex(send))")
            } else {
                // What this same read produced before the failure still goes out (msg2, and
                // the header frame written on accepting): whole items of those sizes only.
                fuzzCheck(
                    Self.isResponderOutput(send, allowed: [108, 24]),
                    "\(failure) still sent \(fuzzHex(send))")
            }
            if case .identityRejected = failure.code {
                fuzzCheck(!accept, "an accepted identity was reported as rejected")
            }
        }
    }

    /// `send` is `u16 length ‖ body` items whose lengths follow `allowed` in order (each at
    /// most once): msg2, then the header frame.
    static func isResponderOutput(_ send: [UInt8], allowed: [Int]) -> Bool {
        var offset = 0
        var remaining = allowed[...]
        while offset < send.count {
            guard send.count - offset >= 2 else { return false }
            let length = Int(send[offset]) << 8 | Int(send[offset + 1])
            guard let index = remaining.firstIndex(of: length), send.count - offset - 2 >= length
            else { return false }
            remaining = remaining[(index + 1)...]
            offset += 2 + length
        }
        return true
    }

    /// After the handshake: transport frames, and any whole messages through the app codec.
    mutating func open(_ chunk: [UInt8]) {
        guard var current = opener.take() else { return }
        var delivered: [ChannelEvent] = []
        do {
            try current.receive(chunk, into: &delivered)
        } catch {
            openerFailed = true
        }
        opener = consume current
        for case .message(let bytes) in delivered {
            _ = try? AppMessage.decode(bytes)
        }
        events += delivered
    }

    /// A finished handshake refuses further input instead of acting on it.
    mutating func finish() {
        guard failure != nil else { return }
        switch handshake.receive([0x4C]) {
        case .failed: break
        default: FuzzFailure.report("a failed handshake accepted more input")
        }
    }
}
