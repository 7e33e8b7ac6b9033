import Testing

@testable import LanChatCLI

#if canImport(Glibc)
    import Glibc
#endif

/// A relative --socket (QA: doctor said "`. is 0777 … fix: chmod go-w .`"): the directory,
/// and the socket in a fix, are named from the root, so that they mean the same wherever
/// the output is read.
@Suite struct DoctorRelativeSocketTests {
    typealias F = DoctorFixtures

    func relative(directoryMode: UInt32 = 0o700, mode: UInt32 = 0o600) -> DoctorFacts {
        var facts = F.healthy
        facts.socketPath = "lanchatd.sock"
        facts.socketDirectory = "/home/u/run"
        facts.socket = .present(
            mode: mode, owner: F.uid, directoryMode: directoryMode, directoryOwner: F.uid)
        return facts
    }

    @Test func theDirectoryIsNamedFromTheRoot() {
        let open = F.check("socket", relative(directoryMode: 0o777))
        #expect(open?.detail == "/home/u/run is 0777: others may replace the socket in it")
        #expect(open?.fix == "chmod go-w /home/u/run")
        #expect(
            F.check("socket", relative(mode: 0o644))?.fix == "chmod 0600 /home/u/run/lanchatd.sock")
        #expect(F.check("socket", relative())?.outcome == .passed)
    }

    @Test func aRelativeDirectoryIsResolvedAgainstTheWorkingDirectory() throws {
        let cwd = try #require(realpath(".", nil))
        defer { free(cwd) }
        let here = String(cString: cwd)
        #expect(DoctorGathering.absoluteDirectory(of: "lanchatd.sock") == here)
        #expect(DoctorGathering.absoluteDirectory(of: "./lanchatd.sock") == here)
        #expect(DoctorGathering.absoluteDirectory(of: "/run/x/lanchatd.sock") == "/run/x")
        #expect(lastComponent(of: "/run/x/lanchatd.sock") == "lanchatd.sock")
        #expect(lastComponent(of: "lanchatd.sock") == "lanchatd.sock")
        // The socket itself, as every check's message and fix name it (found by QA: "its
        // socket e.sock is gone").
        #expect(DoctorGathering.absolutePath("e.sock") == here + "/e.sock")
        #expect(DoctorGathering.absolutePath("/run/x/e.sock") == "/run/x/e.sock")
    }
}
