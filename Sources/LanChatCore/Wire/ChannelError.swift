/// Why an established channel can no longer be used. After any of these the sealer or opener
/// that threw refuses further use. `description` is one log line with no key material and no
/// plaintext.
public struct ChannelError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// secretstream pull failed: tampering, replay, reordering, or another key or header.
        case authenticationFailed
        /// A frame length outside 19…65 535 (checked before the body is read).
        case lengthOutOfBounds(Int)
        /// A frame arrived with TAG_PUSH, which LCHT/1 never uses.
        case pushTag
        /// The tag does not match the frame type (e.g. DATA with FINAL).
        case tagMismatch(type: UInt8, tag: UInt8)
        /// Reserved flag bits set.
        case invalidFlags(type: UInt8, flags: UInt8)
        /// A body of the wrong size for its type (REKEY not empty, CLOSE not 2 bytes).
        case malformedBody(type: UInt8)
        /// DATA fragments beyond 1 MiB without END.
        case reassemblyOverflow
        /// A local message over 1 MiB, or a frame body over 65 516 bytes.
        case messageTooLarge(Int)
        /// The input ended without CLOSE: the tail may have been cut off.
        case truncated
        /// The peer's CLOSE was already received, or our own CLOSE already sent.
        case closed
        /// An earlier error made this side unusable.
        case unusable
        /// The 2^48-frame backstop of §4.3.
        case counterExhausted
        /// A libsodium call failed for a reason other than the peer's input.
        case cryptoFailure(String)
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .authenticationFailed:
            "frame failed authentication (tampered, replayed, reordered or wrong key)"
        case .lengthOutOfBounds(let length): "frame length \(length) out of bounds"
        case .pushTag: "frame with TAG_PUSH"
        case .tagMismatch(let type, let tag): "frame type \(type) with mismatched tag \(tag)"
        case .invalidFlags(let type, let flags): "frame type \(type) with invalid flags \(flags)"
        case .malformedBody(let type): "frame type \(type) with a malformed body"
        case .reassemblyOverflow: "application message exceeds 1 MiB"
        case .messageTooLarge(let size): "message of \(size) bytes is too large"
        case .truncated: "connection lost, possibly truncated"
        case .closed: "channel already closed"
        case .unusable: "channel unusable after an earlier error"
        case .counterExhausted: "frame counter exhausted"
        case .cryptoFailure(let what): "libsodium \(what) failed"
        }
    }
}
