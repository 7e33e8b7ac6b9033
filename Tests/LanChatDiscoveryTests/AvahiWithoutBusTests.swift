import LanChatCore
import LanChatDiscovery
import Logging
import Testing

/// `AvahiDiscovery` on a machine without a system D-Bus (a bare CI container, this
/// workstation): it must start anyway, report `.failed`, warn once, and stop cleanly. Skipped
/// where a system bus exists, since the backend would then talk to a real avahi-daemon.
@Suite(
    .enabled(
        if: TestEnvironment.hasNoSystemBus,
        "SKIPPED: a system D-Bus is reachable; the no-D-Bus lifecycle is not testable here"))
struct AvahiWithoutBusTests {
    static let advertisement = Advertisement(
        instanceName: "nobus (ABCD-EFGH)", port: 4711, key: TestKeys.fixed(6), status: .available,
        statusText: "")

    @Test func startsReportsFailedWarnsOnceAndStopsOnCancel() async throws {
        let logs = LogCapture()
        let discovery = AvahiDiscovery(
            configuration: .init(ownKey: Self.advertisement.key),
            logger: logs.logger(label: "avahi.nobus", echoLevel: .critical))
        discovery.announce(Self.advertisement)  // Before run: kept, never an error.
        let recorder = EventRecorder()
        let recording = recorder.record(discovery.events)
        let run = Task { try await discovery.run() }

        let first = await recorder.first { $0.state != nil }
        #expect(first?.event == .stateChanged(.failed))

        // A second run while the first runs is refused and leaves the first alone.
        await #expect(throws: AvahiDiscoveryError.self) { try await discovery.run() }

        run.cancel()
        try await run.value
        await recording.value
        #expect(await recorder.isFinished)
        discovery.announce(Self.advertisement)  // After stop: ignored.

        let warnings = logs.lines.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("mDNS discovery paused, static peers still work") == true)
        // The bus is what is missing, and what to start (found by QA: it blamed avahi-daemon).
        #expect(warnings.first?.contains("the system D-Bus is not running") == true)
        #expect(warnings.first?.contains("sudo systemctl start dbus") == true)
    }

    @Test func cancelledBeforeItStartsStillFinishesEvents() async throws {
        let discovery = AvahiDiscovery(
            configuration: .init(ownKey: Self.advertisement.key),
            logger: Logger(label: "avahi.nobus") { _ in SwiftLogNoOpLogHandler() })
        let recorder = EventRecorder()
        let recording = recorder.record(discovery.events)
        let run = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await discovery.run()
        }
        try await run.value
        await recording.value
        #expect(await recorder.isFinished)
    }
}
