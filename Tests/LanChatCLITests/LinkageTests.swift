import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The CLI is a client of the control API only (ARCHITECTURE.md): the built `lanchat`
/// links none of Crypto, Transport, Discovery, Store or the daemon, nor their C libraries
/// and NIO. Checked on the binary itself, which `swift test` builds next to the test bundle.
@Suite struct LinkageTests {
    /// Mangled module names (length-prefixed, as in every symbol of the module) and shared
    /// libraries that must not appear in `lanchat`.
    static let forbidden = [
        "13LanChatCrypto", "16LanChatTransport", "16LanChatDiscovery", "12LanChatStore",
        "13LanChatDaemon", "7NIOCore", "8NIOPosix", "4GRDB", "libsodium.so", "libavahi-client.so",
        "libsqlite3.so",
    ]

    @Test func lanchatLinksOnlyTheClientSide() throws {
        let binary = try #require(
            Self.readBuiltBinary("lanchat"), "build the lanchat product first")
        // The check would pass vacuously if it could not see module names at all.
        #expect(Self.contains(binary, "14LanChatControl"))
        #expect(Self.contains(binary, "13LanChatClient"))
        for marker in Self.forbidden {
            #expect(!Self.contains(binary, marker), "lanchat links \(marker)")
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard let first = pattern.first else { return true }
        return haystack.withUnsafeBytes { hay in
            guard let base = hay.baseAddress else { return false }
            var offset = 0
            // memchr to each candidate first byte, memcmp for the rest: fast on a debug build.
            while offset + pattern.count <= hay.count {
                guard let hit = memchr(base + offset, Int32(first), hay.count - offset) else {
                    return false
                }
                let position = base.distance(to: UnsafeRawPointer(hit))
                if position + pattern.count > hay.count { return false }
                if memcmp(hit, pattern, pattern.count) == 0 { return true }
                offset = position + 1
            }
            return false
        }
    }

    /// The executable `name` in the directory of the running test bundle.
    static func readBuiltBinary(_ name: String) -> [UInt8]? {
        builtBinaryPath(name).flatMap(readFile)
    }

    /// The path of the executable `name` built next to the running test bundle.
    static func builtBinaryPath(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let executable = String(
            decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        return executable[..<slash] + "/" + name
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}
