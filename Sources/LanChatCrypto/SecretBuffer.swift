internal import CSodium

/// A fixed-size buffer for one secret (a key, a DH output, a chaining key, a key file image),
/// in `sodium_malloc` memory: guard pages, a canary, mlock/MADV_DONTDUMP where possible, and
/// zeroed by `sodium_free` when the owner lets go (PROTOCOL.md §8). Secrets never live in Array,
/// Data or String, whose copies cannot be wiped.
///
/// A final class, so the secret is never copied; each instance has exactly one owner (a
/// handshake, a stream state, an identity) and is never handed to another.
package final class SecretBuffer {
    let pointer: UnsafeMutableRawPointer
    let count: Int

    package init(count: Int) throws(SodiumError) {
        try Sodium.initialize()
        guard count > 0, let memory = sodium_malloc(count) else {
            throw SodiumError("sodium_malloc(\(count)) failed")
        }
        pointer = memory
        self.count = count
        sodium_memzero(memory, count)
    }

    /// A copy of `bytes` (test hooks and known-answer vectors only).
    package convenience init(copying bytes: [UInt8]) throws(SodiumError) {
        try self.init(count: bytes.count)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { pointer.copyMemory(from: base, byteCount: count) }
        }
    }

    deinit { sodium_free(pointer) }

    var bytes: UnsafeMutablePointer<UInt8> { pointer.assumingMemoryBound(to: UInt8.self) }
    var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    func wipe() { sodium_memzero(pointer, count) }

    /// Makes the memory read-only: a stray write faults instead of corrupting the key.
    func makeReadOnly() { _ = sodium_mprotect_readonly(pointer) }

    func copy(from source: SecretBuffer, offset: Int = 0) {
        let length = min(count, max(source.count - offset, 0))
        pointer.copyMemory(from: source.pointer + offset, byteCount: length)
    }

    var isAllZero: Bool { sodium_is_zero(bytes, count) == 1 }

    /// Constant-time equality with public bytes of the same length.
    func constantTimeEquals(_ other: UnsafeRawBufferPointer) -> Bool {
        guard other.count == count, let base = other.baseAddress else { return false }
        return sodium_memcmp(pointer, base, count) == 0
    }

    /// Test hook: the secret as an array, for known-answer tests only.
    package var exposedForTesting: [UInt8] { Array(raw) }
}
