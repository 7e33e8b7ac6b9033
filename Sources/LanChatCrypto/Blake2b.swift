internal import CSodium

/// BLAKE2b-256 through `crypto_generichash`, with its return code checked on the line of the
/// call. Unkeyed with a 32-byte output it cannot fail on a working libsodium; a failure means
/// the library is unusable, which is reported, never ignored.
enum Blake2b {
    static func hash256(_ input: [UInt8]) throws(SodiumError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        try hash256(input, count: input.count, into: &out)
        return out
    }

    /// Hashes `count` bytes at `input` into the 32 bytes at `output`.
    static func hash256(
        _ input: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>
    ) throws(SodiumError) {
        try Sodium.initialize()
        guard crypto_generichash(output, 32, input, UInt64(count), nil, 0) == 0 else {
            throw SodiumError("crypto_generichash failed")
        }
    }
}
