/// The payload inside msg2 and msg3 (PROTOCOL.md §3.4): format, the sender's highest version,
/// capabilities and TLV extensions. It arrives authenticated (after the AEAD), but its content
/// is still the peer's choice, so parsing is strict and never traps.
public struct HandshakePayload: Equatable, Sendable {
    /// One TLV extension. Unknown types are kept (and ignored by v1).
    public struct Extension: Equatable, Sendable {
        public var type: UInt16
        public var value: [UInt8]

        public init(type: UInt16, value: [UInt8]) {
            self.type = type
            self.value = value
        }
    }

    public static let format: UInt8 = 0x01

    public var maxVersion: UInt8
    public var capabilities: UInt64
    public var extensions: [Extension]

    public init(maxVersion: UInt8, capabilities: UInt64 = 0, extensions: [Extension] = []) {
        self.maxVersion = maxVersion
        self.capabilities = capabilities
        self.extensions = extensions
    }

    /// The wire form. Callers keep extensions small enough for the 512-byte limit; `parse`
    /// rejects anything longer.
    public var bytes: [UInt8] {
        var out: [UInt8] = [Self.format, maxVersion, 0, 0]
        ByteCoding.appendUInt64(capabilities, to: &out)
        for item in extensions {
            ByteCoding.appendUInt16(item.type, to: &out)
            ByteCoding.appendUInt16(UInt16(truncatingIfNeeded: item.value.count), to: &out)
            out += item.value
        }
        return out
    }

    /// Parses a decrypted payload: 12…512 bytes, format 1, max_ver ≥ 1, each TLV type at most
    /// once, no TLV running past the end. The reserved bytes are ignored.
    public static func parse(_ bytes: ArraySlice<UInt8>) -> Result<
        HandshakePayload, HandshakeFailure
    > {
        guard bytes.count >= WireLimits.payloadMinimum, bytes.count <= WireLimits.payloadMaximum
        else { return .failure(HandshakeFailure(.badPayload("payload is \(bytes.count) bytes"))) }
        let start = bytes.startIndex
        guard bytes[start] == format else {
            return .failure(HandshakeFailure(.badPayload("unknown payload format \(bytes[start])")))
        }
        let maxVersion = bytes[start + 1]
        guard maxVersion >= 1 else {
            return .failure(HandshakeFailure(.badPayload("max_ver 0")))
        }
        guard let capabilities = ByteCoding.readUInt64(bytes, at: 4) else {
            return .failure(HandshakeFailure(.badPayload("payload too short")))
        }
        var extensions: [Extension] = []
        var offset = WireLimits.payloadMinimum
        while offset < bytes.count {
            guard let type = ByteCoding.readUInt16(bytes, at: offset),
                let length = ByteCoding.readUInt16(bytes, at: offset + 2)
            else { return .failure(HandshakeFailure(.badPayload("truncated TLV header"))) }
            let valueStart = offset + 4
            guard valueStart + Int(length) <= bytes.count else {
                return .failure(HandshakeFailure(.badPayload("TLV \(type) overruns the payload")))
            }
            guard !extensions.contains(where: { $0.type == type }) else {
                return .failure(HandshakeFailure(.badPayload("duplicate TLV \(type)")))
            }
            let value = bytes[(start + valueStart)..<(start + valueStart + Int(length))]
            extensions.append(Extension(type: type, value: Array(value)))
            offset = valueStart + Int(length)
        }
        return .success(
            HandshakePayload(
                maxVersion: maxVersion, capabilities: capabilities, extensions: extensions))
    }
}
