import Testing

@testable import LanChatDaemon

/// The values of lanchatd's options that QA found taken without a word: a static peer that
/// can never be dialled, a blank name, a default name made of an unusable `USER`.
@Suite struct DaemonOptionsTests {
    @Test(arguments: [
        "10.0.0.5:7000", "[fe80::1%eth0]:7001", "[::1]:7002", "desk.local:7003", "desk.:7004",
        "my_host-2:7005",
    ])
    func aStaticPeerThatCanBeDialledIsTaken(_ text: String) throws {
        #expect(try StaticPeer(parsing: text).description == text)
    }

    @Test(arguments: [
        ("a b:1", "'a b' is not a host name or an IP address"),
        ("a..b:1", "'a..b' is not a host name or an IP address"),
        ("999.1.1.1:5", "'999.1.1.1' is not an IPv4 address"),
        ("-desk:5", "'-desk' is not a host name or an IP address"),
        ("[fe80::zz]:5", "'fe80::zz' is not an IPv6 address"),
        ("desk%eth0:5", "an interface scope (%) is only for IPv6 link-local addresses"),
        ("a\nb:1", "'a\nb' is not a host name or an IP address"),
    ])
    func aStaticPeerThatCannotIsRefusedWithWhy(_ text: String, _ problem: String) {
        do {
            _ = try StaticPeer(parsing: text)
            Issue.record("\(text) must be refused")
        } catch {
            #expect(error.description == "--peer \(text): \(problem)")
            #expect(error.exitCode == 64)
        }
    }

    @Test func aNameIsNotBlankNorPaddedWithSpaces() {
        #expect(DaemonConfiguration.displayNameProblem(" ") == "cannot be blank")
        // Nor invisible (found by QA: a name of U+200B alone started and showed nothing).
        #expect(DaemonConfiguration.displayNameProblem("\u{200B}") == "cannot be blank")
        #expect(DaemonConfiguration.displayNameProblem("\u{3164}") == "cannot be blank")
        #expect(
            DaemonConfiguration.displayNameProblem("  alice  ")
                == "cannot start or end with white space")
        #expect(DaemonConfiguration.displayNameProblem("alice smith") == nil)
    }

    @Test func anUnusableUserGivesWayToTheNextSource() {
        let bad = DaemonConfiguration.defaultName(
            environment: ["USER": "bad\u{1B}name", "LOGNAME": "logan"])
        #expect(bad.hasPrefix("logan@"), "\(bad)")
        let empty = DaemonConfiguration.defaultName(environment: ["USER": ""])
        #expect(!empty.hasPrefix("@"), "\(empty)")
        #expect(DaemonConfiguration.displayNameProblem(empty) == nil)
    }
}
