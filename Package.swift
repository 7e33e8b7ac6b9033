// swift-tools-version:6.1
// lanchat: a peer-to-peer LAN messenger. Module layout and dependency direction are described
// in docs/architecture.md; dependencies point one way, and the CLI links none of Crypto,
// Transport, Discovery or Store (checked by Tests/LanChatCLITests/LinkageTests.swift).
import PackageDescription

/// How the release binaries link (docs/benchmarks.md, figures 5 and 7): the dynamic loader
/// reads every relocation record and every exported symbol of a binary at start. lld packs
/// the tens of thousands of relative relocations of a position-independent binary (DT_RELR,
/// glibc ≥ 2.36), and nothing needs the thousands of symbols the static runtime exports.
/// libstdc++ is linked from its archive (scripts/static-libstdc++/libstdc++.so), so no
/// process maps the shared one.
let leanReleaseLink = [
    "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--no-export-dynamic",
    "-L\(Context.packageDirectory)/scripts/static-libstdc++",
]

let package = Package(
    name: "lanchat",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lanchatd", targets: ["lanchatd"]),
        .executable(name: "lanchat", targets: ["lanchat"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // lanchatd.conf (PRODUCT.md §2): a maintained TOML parser (toml++ underneath).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Pure Swift: no I/O, no C, no NIO.
        .target(name: "LanChatCore"),

        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .target(name: "LanChatCrypto", dependencies: ["CSodium", "LanChatCore"]),

        .target(
            name: "LanChatStore",
            dependencies: ["LanChatCore", .product(name: "GRDB", package: "GRDB.swift")]
        ),

        // No pkgConfig: avahi-client.pc adds -D_REENTRANT, which SwiftPM rejects with a
        // warning on every build; the headers are in /usr/include and the module map links.
        .systemLibrary(
            name: "CAvahi",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        .target(
            name: "LanChatDiscovery",
            dependencies: [
                "CAvahi", "LanChatCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        .target(
            name: "LanChatTransport",
            dependencies: [
                "LanChatCore", "LanChatCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // ncursesw for `lanchat chat`'s terminal mode; linked by the CLI only.
        .systemLibrary(
            name: "CNcurses",
            providers: [.apt(["libncurses-dev"])]
        ),

        // getxattr, for the configuration file's access list; libc, nothing to link.
        .systemLibrary(name: "CXattr"),

        // The control API schema shared by daemon and CLI. Foundation only.
        .target(name: "LanChatControl"),
        .target(name: "LanChatClient", dependencies: ["LanChatControl"]),

        .target(
            name: "LanChatDaemon",
            dependencies: [
                "LanChatCore", "LanChatCrypto", "LanChatStore", "LanChatDiscovery",
                "LanChatTransport", "LanChatControl", "CXattr",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .target(
            name: "LanChatCLI",
            dependencies: [
                "LanChatClient", "LanChatControl", "CNcurses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "lanchatd",
            dependencies: [
                "LanChatDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The functions the daemon runs come first in its code (scripts/lanchatd.order,
            // made by `make symbol-order`), and the compiler's unnamed ones (closure contexts'
            // destructors and the like, which no list can name) just before them
            // (scripts/lanchatd-text.ld): a fault then maps pages of code that runs (idle RSS,
            // docs/benchmarks.md, figure 7).
            linkerSettings: [
                .unsafeFlags(
                    leanReleaseLink + [
                        "-Xlinker",
                        "--symbol-ordering-file=\(Context.packageDirectory)/scripts/lanchatd.order",
                        "-Xlinker", "--no-warn-symbol-ordering",
                        "-Xlinker", "-T", "-Xlinker",
                        "\(Context.packageDirectory)/scripts/lanchatd-text.ld",
                    ], .when(configuration: .release))
            ]
        ),
        .executableTarget(
            name: "lanchat", dependencies: ["LanChatCLI"],
            // Every call starts a process: the loader's work is part of its wall time (figure 5).
            linkerSettings: [.unsafeFlags(leanReleaseLink, .when(configuration: .release))]),
        // `make bench`: the figures of PRODUCT.md §8 from a release build (docs/benchmarks.md).
        .executableTarget(
            name: "LanChatBench",
            dependencies: [
                "LanChatDaemon", "LanChatClient", "LanChatControl", "LanChatCore", "LanChatCrypto",
                "LanChatStore", "LanChatTransport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/LanChatBench"
        ),

        // What several test targets share (a test target cannot import another).
        .target(name: "LanChatTestSupport", path: "Tests/Support"),
        .testTarget(name: "LanChatCoreTests", dependencies: ["LanChatCore", "LanChatTestSupport"]),
        .testTarget(
            name: "LanChatCryptoTests",
            dependencies: ["LanChatCrypto", "LanChatCore", "LanChatTestSupport"]),
        .testTarget(
            name: "LanChatStoreTests",
            dependencies: ["LanChatStore", "LanChatCore", "LanChatTestSupport"]),
        .testTarget(
            name: "LanChatDiscoveryTests",
            dependencies: [
                "LanChatDiscovery", "LanChatCore", "LanChatTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LanChatTransportTests",
            dependencies: [
                "LanChatTransport", "LanChatCrypto", "LanChatCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LanChatControlTests", dependencies: ["LanChatControl", "LanChatTestSupport"]),
        .testTarget(
            name: "LanChatCLITests",
            dependencies: ["LanChatCLI", "LanChatClient", "LanChatControl", "LanChatTestSupport"]
        ),
        // Whole daemons in one process on 127.0.0.1, driven through the real client.
        .testTarget(
            name: "LanChatDaemonTests",
            dependencies: [
                "LanChatDaemon", "LanChatClient", "LanChatControl", "LanChatCore",
                "LanChatCrypto", "LanChatStore",
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // The built lanchatd and lanchat binaries as separate processes on loopback.
        .testTarget(
            name: "LanChatEndToEndTests", dependencies: ["LanChatControl", "LanChatTestSupport"]),

        // libFuzzer targets (docs/testing.md, "Fuzzing"): `make fuzz` builds them with
        // -sanitize=fuzzer,address into .build-fuzz; the ordinary build makes them replay
        // inputs from disk. They link only Core, Crypto and Control.
        .target(name: "LanChatFuzzSupport", dependencies: ["LanChatCore"], path: "Fuzz/Support"),
        .target(
            name: "LanChatFuzzChannel",
            dependencies: ["LanChatCore", "LanChatCrypto", "LanChatFuzzSupport"],
            path: "Fuzz/Channel"),
        .executableTarget(
            name: "FuzzAppCodec", dependencies: ["LanChatCore", "LanChatFuzzSupport"],
            path: "Fuzz/AppCodec", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzWireFrames", dependencies: ["LanChatCore", "LanChatFuzzSupport"],
            path: "Fuzz/WireFrames", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzFrameOpener",
            dependencies: [
                "LanChatCore", "LanChatCrypto", "LanChatFuzzSupport", "LanChatFuzzChannel",
            ],
            path: "Fuzz/FrameOpener", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzHandshake",
            dependencies: [
                "LanChatCore", "LanChatCrypto", "LanChatFuzzSupport", "LanChatFuzzChannel",
            ],
            path: "Fuzz/Handshake", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzHandshakeMachine", dependencies: ["LanChatCore", "LanChatFuzzSupport"],
            path: "Fuzz/HandshakeMachine", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzTXTRecord", dependencies: ["LanChatCore", "LanChatFuzzSupport"],
            path: "Fuzz/TXTRecord", exclude: ["corpus", "TXTRecord.dict"]),
        .executableTarget(
            name: "FuzzKeyFile",
            dependencies: ["CSodium", "LanChatCore", "LanChatCrypto", "LanChatFuzzSupport"],
            path: "Fuzz/KeyFile", exclude: ["corpus"]),
        .executableTarget(
            name: "FuzzControlRequest", dependencies: ["LanChatControl", "LanChatFuzzSupport"],
            path: "Fuzz/ControlRequest", exclude: ["corpus", "ControlRequest.dict"]),
    ]
)
