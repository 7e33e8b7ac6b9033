/// Why a handshake ended without a channel. One log line each (`description`); it never
/// carries key material, and the remote key appears only as its public key tag elsewhere.
public struct HandshakeFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// The responder read something other than "LCHT": it closes without a byte.
        case badMagic
        /// The initiator spoke a wire version this responder does not implement.
        case unsupportedVersion(UInt8)
        /// The preamble's max_ver is below its wire_ver.
        case maxBelowWireVersion
        /// The responder answered VERSION_REJECT (an unauthenticated hint) with its max.
        case versionRejected(peerMaxVersion: UInt8)
        /// A handshake length prefix outside the message's bounds (checked before the body).
        case lengthOutOfBounds(message: String, length: Int)
        /// An AEAD in msg2 or msg3 failed: tampering, replay or the wrong peer.
        case decryptionFailed
        /// A received public key is not a canonical X25519 u-coordinate.
        case nonCanonicalKey
        /// X25519 produced the all-zero output (a low-order point).
        case lowOrderKey
        /// The decrypted payload breaks the §3.4 rules.
        case badPayload(String)
        /// p3.max_ver differs from the preamble's max_ver (§3.5, responder step 5).
        case maxVersionMismatch
        /// Both sides support a newer version than the one spoken (§3.7).
        case downgradeDetected
        /// The peer proved our own static key (reflection or self-dial, §3.8 row 1).
        case selfConnection
        /// The caller's identity decision said no (§3.8).
        case identityRejected
        /// The first transport frame was not a valid 24-byte secretstream header.
        case badStreamHeader
        /// The peer sent more data than allowed while the handshake was waiting for a decision.
        case tooMuchEarlyData
        /// A libsodium call failed for a reason other than the peer's input.
        case cryptoFailure(String)
        /// The handshake was driven out of order (a bug in the caller).
        case misuse(String)
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .badMagic: "handshake failed: peer did not speak LCHT (bad magic)"
        case .unsupportedVersion(let version):
            "handshake failed: unsupported wire version \(version)"
        case .maxBelowWireVersion: "handshake failed: preamble max_ver below wire_ver"
        case .versionRejected(let max):
            "handshake failed: peer rejected our version (it says its max is \(max))"
        case .lengthOutOfBounds(let message, let length):
            "handshake failed: \(message) length \(length) out of bounds"
        case .decryptionFailed:
            "handshake failed: authentication failed (tampered, replayed or wrong peer)"
        case .nonCanonicalKey: "handshake failed: peer sent a non-canonical public key"
        case .lowOrderKey: "handshake failed: peer sent a low-order public key"
        case .badPayload(let why): "handshake failed: bad payload (\(why))"
        case .maxVersionMismatch: "handshake failed: msg3 max_ver differs from the preamble"
        case .downgradeDetected: "handshake failed: DOWNGRADE_DETECTED"
        case .selfConnection: "handshake aborted: peer presented our own key"
        case .identityRejected: "handshake aborted: peer identity not accepted"
        case .badStreamHeader: "handshake failed: bad secretstream header frame"
        case .tooMuchEarlyData: "handshake failed: peer sent too much data before completion"
        case .cryptoFailure(let what): "handshake failed: libsodium \(what) failed"
        case .misuse(let what): "handshake misuse: \(what)"
        }
    }
}
