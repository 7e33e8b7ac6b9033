import Foundation

/// Where the built `lanchatd` and `lanchat` are: `LANCHAT_BIN_DIR` (the Makefile sets it),
/// else the directory of the running test bundle (`.build/debug`). A missing binary is an
/// error that names the path and the fix; the end-to-end tests never skip silently.
enum Binaries {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The daemon, `lanchatd`.
    static func lanchatd() throws -> String { try locate("lanchatd") }

    /// The command line, `lanchat`.
    static func lanchat() throws -> String { try locate("lanchat") }

    static var directory: String {
        if let explicit = ProcessInfo.processInfo.environment["LANCHAT_BIN_DIR"],
            !explicit.isEmpty
        {
            return explicit
        }
        return runningBundleDirectory
    }

    private static func locate(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Missing(
                description: """
                    \(name) not found at \(path): build it first (`swift build`) or point \
                    LANCHAT_BIN_DIR at the directory holding lanchatd and lanchat
                    """)
        }
        return path
    }

    /// `.build/<triple>/debug`: the directory of the test executable this process runs.
    private static var runningBundleDirectory: String {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? "."
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // On Linux the bundle is the executable file `lanchatPackageTests.xctest` itself;
        // on other systems it is a directory with the executable inside: climb out of it.
        while url.pathComponents.contains(where: { $0.hasSuffix(".xctest") }) {
            url.deleteLastPathComponent()
        }
        return url.path
    }
}
