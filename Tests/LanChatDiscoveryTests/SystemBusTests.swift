import Testing

@testable import LanChatDiscovery

/// Telling a missing system bus from a missing avahi-daemon, for the log line.
@Suite struct SystemBusTests {
    @Test func theBusIsMissingOnlyWhenNoSocketAndNoAddressSayOtherwise() {
        #expect(SystemBus.isMissing(environment: [:], exists: { _ in false }))
        #expect(!SystemBus.isMissing(environment: [:], exists: { $0 == SystemBus.socketPath }))
        #expect(!SystemBus.isMissing(environment: [:], exists: { $0.hasPrefix("/var/run/") }))
        // Another address we do not check: nothing is claimed.
        #expect(
            !SystemBus.isMissing(
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/srv/bus"],
                exists: { _ in false }))
    }
}
