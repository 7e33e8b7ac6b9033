import CSodium
import LanChatCore
import LanChatCrypto
import LanChatFuzzSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The `identity.key` loader (PROTOCOL.md §5) under fuzzing. Its decoder is internal to
/// LanChatCrypto, so the input goes the honest way: written to `identity.key` in a private
/// temporary directory and read with the public `IdentityKeyPair.load(path:)`, the function
/// the daemon calls.
///
/// A 108-byte input is also loaded a second time with its BLAKE2b checksum recomputed, so
/// the fuzzer reaches the checks behind the checksum (all-zero secret, public key not matching
/// the secret) that it could never reach by mutation alone.
///
/// Property: the loader accepts exactly what `KeyFileModel` accepts, with that public key, and
/// rejects everything else as `.corrupt`.
enum KeyFileHarness {
    static func run(_ bytes: [UInt8]) {
        check(bytes)
        if bytes.count == KeyFileModel.size {
            check(KeyFileModel.withChecksumFixed(bytes))
        }
    }

    static func check(_ image: [UInt8]) {
        let path = KeyFileDirectory.shared.path + "/" + IdentityKeyPair.fileName
        guard KeyFileDirectory.write(image, to: path) else {
            FuzzFailure.report("cannot write \(path)")
        }
        let expected = KeyFileModel.publicKey(of: image)
        do {
            let identity = try IdentityKeyPair.load(path: path)
            fuzzCheck(
                expected == identity.publicKey.bytes,
                "loaded a key the model rejects: \(fuzzHex(image))")
        } catch {
            guard case .corrupt = error.code else {
                FuzzFailure.report("the loader failed for a reason not about content: \(error)")
            }
            fuzzCheck(
                expected == nil, "rejected a valid key file (\(error)): \(fuzzHex(image))")
        }
        fuzzTrace(
            "\(image.count) bytes: \(expected.map { "key \(fuzzHex($0.prefix(4)))…" } ?? "corrupt")"
        )
    }
}

/// The file format of PROTOCOL.md §5 written out: `"LCHTKEY1" ‖ flags u32 (0) ‖ sk[32] ‖
/// pk[32] ‖ BLAKE2b-256(first 76 bytes)`, sk not all zero, pk = X25519(sk).
enum KeyFileModel {
    static let size = 108
    static let magic = Array("LCHTKEY1".utf8)

    /// The public key a valid file holds; nil for anything the loader must refuse.
    static func publicKey(of image: [UInt8]) -> [UInt8]? {
        guard image.count == size, image.starts(with: magic),
            image[8..<12].allSatisfy({ $0 == 0 }),
            Array(image[76..<108]) == checksum(image)
        else { return nil }
        let secret = Array(image[12..<44])
        guard secret.contains(where: { $0 != 0 }) else { return nil }
        var derived = [UInt8](repeating: 0, count: 32)
        guard crypto_scalarmult_base(&derived, secret) == 0, derived == Array(image[44..<76])
        else { return nil }
        return derived
    }

    static func checksum(_ image: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, image, 76, nil, 0)
        return out
    }

    static func withChecksumFixed(_ image: [UInt8]) -> [UInt8] {
        Array(image.prefix(76)) + checksum(image)
    }

    /// A well-formed file for `secret` (the seeds).
    static func file(secret: [UInt8], flags: UInt32 = 0) -> [UInt8] {
        var derived = [UInt8](repeating: 0, count: 32)
        _ = crypto_scalarmult_base(&derived, secret)
        let flagBytes = (0..<4).map { UInt8(truncatingIfNeeded: flags >> (24 - 8 * $0)) }
        return withChecksumFixed(
            magic + flagBytes + secret + derived + [UInt8](repeating: 0, count: 32))
    }
}

/// The private directory (mode 0700, from mkdtemp) the harness writes `identity.key` into,
/// made once per process and removed at exit.
final class KeyFileDirectory: Sendable {
    static let shared = KeyFileDirectory()
    let path: String

    private init() {
        if (try? Sodium.initialize()) == nil { FuzzFailure.report("libsodium did not start") }
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/lanchat-fuzz-keyfile-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let start = buffer.baseAddress, mkdtemp(start) != nil else { return nil }
            return String(cString: start)
        }
        guard let made else { FuzzFailure.report("mkdtemp in \(base) failed") }
        path = made
        keyFileDirectoryForCleanup = path
        atexit {
            guard let directory = keyFileDirectoryForCleanup else { return }
            unlink(directory + "/" + IdentityKeyPair.fileName)
            rmdir(directory)
        }
    }

    /// Replaces the file's contents (mode 0600, as the loader demands).
    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress.map { $0 + written }, bytes.count - written)
            }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}

/// Read by the exit handler, which cannot capture context. Written once, before registering.
nonisolated(unsafe) private var keyFileDirectoryForCleanup: String?
