/// Seeds: the vector's key file (PROTOCOL.md §3.11, secret 0x11…), another valid file, and
/// each way a file is corrupt: truncated, too long, bad magic, flags, checksum, all-zero
/// secret, public key not matching.
enum KeyFileSeeds {
    static func all() -> [(name: String, bytes: [UInt8])] {
        let vector = KeyFileModel.file(secret: [UInt8](repeating: 0x11, count: 32))
        var badMagic = vector
        badMagic[0] = 0x6C
        var badChecksum = vector
        badChecksum[107] ^= 0x80
        var mismatch = vector
        mismatch[44] ^= 0x01
        let seeds: [(String, [UInt8])] = [
            ("vector", vector),
            ("other-key", KeyFileModel.file(secret: (0..<32).map { UInt8($0 * 7 + 1) })),
            ("truncated", Array(vector.prefix(107))),
            ("too-long", vector + [0]),
            ("empty", []),
            ("bad-magic", KeyFileModel.withChecksumFixed(badMagic)),
            ("bad-flags", KeyFileModel.file(secret: [UInt8](repeating: 0x11, count: 32), flags: 1)),
            ("bad-checksum", badChecksum),
            ("bad-zero-secret", KeyFileModel.file(secret: [UInt8](repeating: 0, count: 32))),
            ("bad-public-key", KeyFileModel.withChecksumFixed(mismatch)),
        ]
        return seeds.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }
}
