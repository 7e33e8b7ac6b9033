import LanChatCore

/// Why a connection ended badly. Each description is one log phrase: it names the failure
/// class and never carries key material or plaintext.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case connectFailed
        case handshakeFailed
        case identityRejected
        case handshakeTimeout
        case readTimeout
        case deadTimeout
        case channelFailed
        case protocolViolation
        /// EOF without CLOSE: "connection lost, possibly truncated" (PROTOCOL.md §4.4).
        case connectionLost
        case admissionRefused
        /// The remote closed an accepted connection without sending a byte: a port probe
        /// (`lanchat doctor`, `nc -z`), not a handshake that failed.
        case closedUnused
    }

    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    static func handshake(_ failure: HandshakeFailure) -> TransportError {
        TransportError(.handshakeFailed, failure.description)
    }

    static func channel(_ error: LanChatCore.ChannelError) -> TransportError {
        if error.code == .truncated {
            return TransportError(.connectionLost, "connection lost, possibly truncated")
        }
        return TransportError(.channelFailed, error.description)
    }
}
