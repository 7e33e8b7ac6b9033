import LanChatCore
import LanChatDiscovery

/// An `AvahiDiscovery` running in a task, with its events recorded, for integration tests.
struct RunningDiscovery {
    let key: PeerKey
    let advertisement: Advertisement
    let discovery: AvahiDiscovery
    let recorder: EventRecorder
    let logs: LogCapture
    let runTask: Task<Void, any Error>
    let recordTask: Task<Void, Never>

    /// Starts a backend with a fresh key, announcing `name (TAG)` on `port`.
    /// With `exactName` the instance name is `name` as given (collision tests).
    static func start(
        name: String, exactName: Bool = false, port: UInt16, interfaces: [String] = [],
        announce: Bool = true
    ) -> RunningDiscovery {
        let key = TestKeys.random()
        let tag = "\(key.id.prefix(4))-\(key.id.dropFirst(4).prefix(4))"
        let advertisement = Advertisement(
            instanceName: exactName ? name : "\(name) (\(tag))",
            port: port, key: key, status: .available, statusText: "hello from \(name)")
        let logs = LogCapture()
        let discovery = AvahiDiscovery(
            configuration: .init(ownKey: key, interfaces: interfaces),
            logger: logs.logger(label: "avahi.\(name)", echoLevel: TestEnvironment.logLevel))
        if announce { discovery.announce(advertisement) }
        let recorder = EventRecorder()
        let recordTask = recorder.record(discovery.events)
        let runTask = Task { try await discovery.run() }
        return RunningDiscovery(
            key: key, advertisement: advertisement, discovery: discovery, runTask: runTask,
            recordTask: recordTask, recorder: recorder, logs: logs)
    }

    private init(
        key: PeerKey, advertisement: Advertisement, discovery: AvahiDiscovery,
        runTask: Task<Void, any Error>, recordTask: Task<Void, Never>, recorder: EventRecorder,
        logs: LogCapture
    ) {
        self.logs = logs
        self.key = key
        self.advertisement = advertisement
        self.discovery = discovery
        self.runTask = runTask
        self.recordTask = recordTask
        self.recorder = recorder
    }

    /// Cancels `run()` and waits until it has withdrawn the record and finished `events`.
    func stop() async throws {
        runTask.cancel()
        try await runTask.value
        await recordTask.value
    }

    /// True if any log line contains one of these keys, in any text form we might print.
    func logsMention(_ keys: [PeerKey]) -> Bool {
        let forms = keys.flatMap { key in
            [
                key.id, key.id.lowercased(), TestKeys.hex(key.bytes),
                TestKeys.hex(key.bytes).uppercased(),
            ]
        }
        return logs.lines.contains { line in forms.contains { line.message.contains($0) } }
    }
}

extension DiscoveryEvent {
    var foundPeer: DiscoveredPeer? {
        if case .found(let peer) = self { return peer }
        return nil
    }

    var lostInstance: ServiceInstance? {
        if case .lost(let instance) = self { return instance }
        return nil
    }

    var state: DiscoveryState? {
        if case .stateChanged(let state) = self { return state }
        return nil
    }
}
