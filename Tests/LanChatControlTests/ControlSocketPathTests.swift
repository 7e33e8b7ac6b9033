import LanChatControl
import Testing

/// `--socket` > `LANCHAT_SOCKET` > `$XDG_RUNTIME_DIR/lanchat/lanchatd.sock` >
/// `/tmp/lanchat-$UID/lanchatd.sock`.
@Suite struct ControlSocketPathTests {
    let full = ["LANCHAT_SOCKET": "/srv/env.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]

    @Test func explicitValueWins() {
        #expect(
            ControlSocketPath.resolve(explicit: "/x.sock", environment: full, uid: 1000)
                == "/x.sock")
    }

    @Test func environmentVariableComesNext() {
        #expect(
            ControlSocketPath.resolve(explicit: nil, environment: full, uid: 1000)
                == "/srv/env.sock")
        #expect(
            ControlSocketPath.resolve(explicit: "", environment: full, uid: 1000) == "/srv/env.sock"
        )
    }

    @Test func runtimeDirectoryThen() {
        let environment = ["XDG_RUNTIME_DIR": "/run/user/1000", "LANCHAT_SOCKET": ""]
        #expect(
            ControlSocketPath.resolve(explicit: nil, environment: environment, uid: 1000)
                == "/run/user/1000/lanchat/lanchatd.sock")
        #expect(
            ControlSocketPath.resolve(
                explicit: nil, environment: ["XDG_RUNTIME_DIR": "/run/u/"], uid: 0)
                == "/run/u/lanchat/lanchatd.sock")
    }

    @Test func tmpFallbackUsesTheUID() {
        #expect(
            ControlSocketPath.resolve(explicit: nil, environment: [:], uid: 1000)
                == "/tmp/lanchat-1000/lanchatd.sock")
        #expect(ControlSocketPath.directory(environment: [:], uid: 0) == "/tmp/lanchat-0")
    }

    @Test func emptyOrRelativeRuntimeDirectoryIsIgnored() {
        for value in ["", "run/user/1000", "./x"] {
            #expect(
                ControlSocketPath.resolve(
                    explicit: nil, environment: ["XDG_RUNTIME_DIR": value], uid: 7)
                    == "/tmp/lanchat-7/lanchatd.sock")
        }
    }

    @Test func productVersionIsSemantic() {
        #expect(LanChatVersion.current == "0.1.0")
    }
}
