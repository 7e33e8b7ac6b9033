/// The 8-byte cleartext preamble the initiator sends first (PROTOCOL.md §3.4): magic, the wire
/// version spoken, the initiator's highest version and two reserved bytes. It is the Noise
/// prologue, so every byte of it is authenticated by the handshake.
public struct Preamble: Equatable, Sendable {
    public var wireVersion: UInt8
    public var maxVersion: UInt8
    /// Sent as 0, ignored on receipt, but still part of the prologue.
    public var reserved: UInt16

    public init(wireVersion: UInt8, maxVersion: UInt8, reserved: UInt16 = 0) {
        self.wireVersion = wireVersion
        self.maxVersion = maxVersion
        self.reserved = reserved
    }

    public var bytes: [UInt8] {
        var out = WireLimits.magic
        out.append(wireVersion)
        out.append(maxVersion)
        ByteCoding.appendUInt16(reserved, to: &out)
        return out
    }

    /// What a responder makes of the first 8 bytes it reads.
    public enum Verdict: Equatable, Sendable {
        case accepted(Preamble)
        /// Not "LCHT": close without writing a byte.
        case badMagic
        /// A version we do not speak (including the reserved 0): the optional VERSION_REJECT
        /// may be sent, then close.
        case unsupportedVersion(UInt8)
        /// `max_ver < wire_ver`: close.
        case maxBelowWireVersion
    }

    /// Classifies exactly 8 bytes, checking magic and versions before any Noise processing.
    public static func classify(
        _ bytes: ArraySlice<UInt8>,
        supported: ClosedRange<UInt8> = WireLimits.wireVersion...WireLimits.wireVersion
    ) -> Verdict {
        guard bytes.count == WireLimits.preambleLength,
            bytes.prefix(4).elementsEqual(WireLimits.magic),
            let reserved = ByteCoding.readUInt16(bytes, at: 6)
        else { return .badMagic }
        let wire = bytes[bytes.startIndex + 4]
        let max = bytes[bytes.startIndex + 5]
        guard wire != 0, supported.contains(wire) else { return .unsupportedVersion(wire) }
        guard max >= wire else { return .maxBelowWireVersion }
        return .accepted(Preamble(wireVersion: wire, maxVersion: max, reserved: reserved))
    }

    /// The cleartext, unauthenticated `"LCHT" 00 <max_ver> 00 00`; wire_ver 0 is reserved for it.
    public static func versionReject(maxVersion: UInt8) -> [UInt8] {
        WireLimits.magic + [0, maxVersion, 0, 0]
    }

    /// The responder's advertised maximum from a VERSION_REJECT, or nil when the 8 bytes are not
    /// one. It is a hint only: it is not authenticated (§3.7).
    public static func parseVersionReject(_ bytes: ArraySlice<UInt8>) -> UInt8? {
        guard bytes.count == WireLimits.preambleLength,
            bytes.prefix(4).elementsEqual(WireLimits.magic),
            bytes[bytes.startIndex + 4] == 0
        else { return nil }
        return bytes[bytes.startIndex + 5]
    }
}
