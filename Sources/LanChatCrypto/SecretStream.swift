internal import CSodium
import LanChatCore

private typealias StreamState = crypto_secretstream_xchacha20poly1305_state

/// The sending half of one direction's `crypto_secretstream_xchacha20poly1305` (PROTOCOL.md
/// §4). The 52-byte state *is* the nonce, so it lives in sodium memory behind a pointer and is
/// never copied. Owned by exactly one FrameSealer (or the handshake until the split); used from
/// one task at a time.
final class OutgoingStream {
    private let storage: SecretBuffer
    private let state: UnsafeMutablePointer<StreamState>
    /// The 24-byte header the peer needs for `init_pull`; public by design.
    let header: [UInt8]

    /// `init_push` with the direction's split key; the caller wipes the key afterwards.
    init(key: SecretBuffer) throws(SodiumError) {
        storage = try SecretBuffer(count: MemoryLayout<StreamState>.size)
        state = storage.pointer.bindMemory(to: StreamState.self, capacity: 1)
        var header = [UInt8](
            repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
        let status = crypto_secretstream_xchacha20poly1305_init_push(state, &header, key.bytes)
        guard status == 0 else { throw SodiumError("secretstream init_push failed") }
        self.header = header
    }

    /// Appends `u16 len ‖ push(plaintext, ad = the 2 len bytes, tag)` to `out`.
    func seal(_ plaintext: [UInt8], tag: UInt8, into out: inout [UInt8]) throws(ChannelError) {
        let length = plaintext.count + WireLimits.streamOverhead
        guard length <= WireLimits.maximumFrameLength else {
            throw ChannelError(.messageTooLarge(plaintext.count))
        }
        let prefix = ByteCoding.lengthPrefix(length)
        var status: Int32 = -1
        let ciphertext = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            var written: UInt64 = 0
            status = crypto_secretstream_xchacha20poly1305_push(
                state, buffer.baseAddress, &written, plaintext, UInt64(plaintext.count), prefix, 2,
                tag)
            initialized = status == 0 && written == UInt64(length) ? length : 0
        }
        guard status == 0, ciphertext.count == length else {
            throw ChannelError(.cryptoFailure("secretstream push"))
        }
        out += prefix
        out += ciphertext
    }
}

/// The receiving half of one direction's secretstream. Same ownership rules as
/// `OutgoingStream`; owned by one FrameOpener.
package final class IncomingStream {
    private let storage: SecretBuffer
    private let state: UnsafeMutablePointer<StreamState>

    /// `init_pull` from the peer's header; a header of the wrong size fails.
    package init(key: SecretBuffer, header: ArraySlice<UInt8>) throws(HandshakeFailure) {
        do {
            storage = try SecretBuffer(count: MemoryLayout<StreamState>.size)
        } catch {
            throw HandshakeFailure(.cryptoFailure(error.description))
        }
        state = storage.pointer.bindMemory(to: StreamState.self, capacity: 1)
        let header = Array(header)
        guard header.count == Int(crypto_secretstream_xchacha20poly1305_headerbytes()) else {
            throw HandshakeFailure(.badStreamHeader)
        }
        guard crypto_secretstream_xchacha20poly1305_init_pull(state, header, key.bytes) == 0 else {
            throw HandshakeFailure(.badStreamHeader)
        }
    }

    /// Decrypts one frame body with the 2 length bytes as AD; returns the tag. Any failure
    /// (forgery, replay, reordering, wrong key or header) is `.authenticationFailed`.
    package func open(
        _ ciphertext: UnsafeRawBufferPointer, ad: [UInt8], into plaintext: inout [UInt8]
    )
        throws(ChannelError) -> UInt8
    {
        guard ciphertext.count >= WireLimits.streamOverhead, let input = ciphertext.baseAddress
        else { throw ChannelError(.authenticationFailed) }
        plaintext = [UInt8](repeating: 0, count: ciphertext.count - WireLimits.streamOverhead)
        var length: UInt64 = 0
        var tag: UInt8 = 0
        let status = plaintext.withUnsafeMutableBufferPointer { out in
            crypto_secretstream_xchacha20poly1305_pull(
                state, out.baseAddress, &length, &tag, input.assumingMemoryBound(to: UInt8.self),
                UInt64(ciphertext.count), ad, UInt64(ad.count))
        }
        guard status == 0, length == UInt64(plaintext.count) else {
            plaintext = []
            throw ChannelError(.authenticationFailed)
        }
        return tag
    }
}
