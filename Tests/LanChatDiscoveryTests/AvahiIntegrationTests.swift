import LanChatCore
import LanChatDiscovery
import Testing

/// Two `AvahiDiscovery` backends against a real avahi-daemon. Runs only with
/// `LANCHAT_AVAHI_TESTS=1`, inside a host whose avahi-daemon is up (the system harness, or
/// system scenario 17-avahi-backend runs them); skipped otherwise, saying so.
@Suite(
    .enabled(
        if: TestEnvironment.avahiTestsEnabled,
        "SKIPPED: needs avahi-daemon; set LANCHAT_AVAHI_TESTS=1 inside a test host"))
struct AvahiIntegrationTests {
    /// What a peer seen from the same host must look like: its key and port, only addresses
    /// of the interface it was seen on, IPv4 first, link-local IPv6 scoped to the interface.
    static func checkSameHostPeer(_ peer: DiscoveredPeer, is other: RunningDiscovery) {
        #expect(peer.announcement?.key == other.key)
        #expect(peer.instance.name == other.advertisement.instanceName)
        let interface = peer.instance.interface ?? ""
        let local = LocalAddresses.of(interface: interface)
        #expect(!peer.endpoints.isEmpty)
        for endpoint in peer.endpoints {
            #expect(endpoint.port == other.advertisement.port)
            #expect(local.contains(endpoint.host), "\(endpoint) is not an address of \(interface)")
            let linkLocal = endpoint.host.lowercased().hasPrefix("fe80:")
            #expect(endpoint.scope == (linkLocal ? interface : nil))
        }
        let families = peer.endpoints.map { $0.host.contains(":") }
        #expect(families == families.sorted { !$0 && $1 }, "IPv4 endpoints come first")
    }

    /// True once the peer has every address family its interface has (IPv4 and IPv6 are
    /// resolved separately and merged).
    static func hasAllFamilies(_ peer: DiscoveredPeer) -> Bool {
        let local = LocalAddresses.of(interface: peer.instance.interface ?? "")
        let wanted = Set(local.map { $0.contains(":") })
        return Set(peer.endpoints.map { $0.host.contains(":") }) == wanted
    }

    @Test func twoBackendsSeeEachOtherUpdateAndLeave() async throws {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        // Alice is restricted to the interface the harness names (`--interface`), if any.
        let alice = RunningDiscovery.start(
            name: "itest-alice-\(suffix)", port: 40_001,
            interfaces: TestEnvironment.value("LANCHAT_AVAHI_TEST_INTERFACE").map { [$0] } ?? [])
        let bob = RunningDiscovery.start(name: "itest-bob-\(suffix)", port: 40_002)

        _ = try await alice.recorder.awaitEvent("alice running") { $0.state == .running }
        _ = try await bob.recorder.awaitEvent("bob running") { $0.state == .running }

        let bobName = bob.advertisement.instanceName
        let aliceName = alice.advertisement.instanceName
        let (_, bobSeen) = try await alice.recorder.awaitEvent("alice sees bob with all addresses")
        {
            guard let peer = $0.foundPeer, peer.instance.name == bobName else { return false }
            return Self.hasAllFamilies(peer)
        }
        let (_, aliceSeen) = try await bob.recorder.awaitEvent("bob sees alice with all addresses")
        {
            guard let peer = $0.foundPeer, peer.instance.name == aliceName else { return false }
            return Self.hasAllFamilies(peer)
        }
        let bobPeer = try #require(bobSeen.foundPeer)
        let alicePeer = try #require(aliceSeen.foundPeer)
        Self.checkSameHostPeer(bobPeer, is: bob)
        Self.checkSameHostPeer(alicePeer, is: alice)
        #expect(alicePeer.announcement?.statusText == "hello from itest-alice-\(suffix)")
        print("alice sees bob at \(bobPeer.endpoints); bob sees alice at \(alicePeer.endpoints)")

        // A new status text goes out as a TXT update and comes back as `.found` again.
        var busy = alice.advertisement
        busy.status = .busy
        busy.statusText = "in a meeting"
        let cursor = await bob.recorder.events.count
        alice.discovery.announce(busy)
        let (_, updated) = try await bob.recorder.awaitEvent("bob sees alice busy", from: cursor) {
            $0.foundPeer?.announcement?.statusText == "in a meeting"
        }
        #expect(updated.foundPeer?.announcement?.status == .busy)
        #expect(updated.foundPeer?.announcement?.key == alice.key)
        #expect(updated.foundPeer?.instance == alicePeer.instance)

        // Stopping alice withdraws her record: bob sees her leave.
        let beforeStop = await bob.recorder.events.count
        try await alice.stop()
        let (_, lost) = try await bob.recorder.awaitEvent("bob sees alice leave", from: beforeStop)
        {
            $0.lostInstance?.name == aliceName
        }
        #expect(lost.lostInstance == alicePeer.instance)
        try await bob.stop()

        // Neither ever reported itself, and no key reached a log line at any level.
        for backend in [alice, bob] {
            let events = await backend.recorder.events
            #expect(!events.contains { $0.foundPeer?.announcement?.key == backend.key })
            #expect(!backend.logsMention([alice.key, bob.key]))
        }
        // Each saw its own record and said so at debug level.
        #expect(alice.logs.lines.contains { $0.message.contains("carries our own id") })
    }

    /// A record published by another host (`LANCHAT_AVAHI_REMOTE_ID` is its id; the harness
    /// publishes it with avahi-publish-service) is found with that key, over the network.
    @Test(
        .enabled(
            if: TestEnvironment.value("LANCHAT_AVAHI_REMOTE_ID") != nil,
            "SKIPPED: set LANCHAT_AVAHI_REMOTE_ID to the id a remote host publishes"))
    func findsARecordPublishedByAnotherHost() async throws {
        let remoteID = try #require(TestEnvironment.value("LANCHAT_AVAHI_REMOTE_ID"))
        let remoteKey = try #require(PeerKey(id: remoteID))
        let observer = RunningDiscovery.start(name: "itest-observer", port: 40_003, announce: false)
        let (_, seen) = try await observer.recorder.awaitEvent("the remote record") {
            guard let peer = $0.foundPeer, peer.announcement?.key == remoteKey else { return false }
            return peer.endpoints.contains { $0.host.contains(":") }
                && peer.endpoints.contains { !$0.host.contains(":") }
        }
        let peer = try #require(seen.foundPeer)
        let interface = try #require(peer.instance.interface)
        let local = LocalAddresses.of(interface: interface)
        print("remote peer \(peer.instance) at \(peer.endpoints), host \(peer.hostName)")
        for endpoint in peer.endpoints {
            #expect(!local.contains(endpoint.host), "\(endpoint) is one of our own addresses")
            #expect(endpoint.scope == (endpoint.host.hasPrefix("fe80:") ? interface : nil))
        }
        #expect(peer.endpoints.first.map { !$0.host.contains(":") } == true)
        // Records the harness publishes with a malformed TXT never show up, and are logged
        // with the reason at debug level.
        let events = await observer.recorder.events
        #expect(!events.contains { $0.foundPeer?.instance.name.hasPrefix("itest-bad") == true })
        let dropped = observer.logs.lines.filter { $0.message.contains("bad TXT record") }
        print("dropped records: \(dropped.map(\.message))")
        #expect(!observer.logsMention([remoteKey]))
        try await observer.stop()
    }

    /// SIGHUP's `useInterfaces` while running. Alice starts on an interface that does not
    /// exist, so she publishes and takes results nowhere; allowed every interface, she is
    /// published and reports Bob, whom her browser had already seen and dropped; narrowed
    /// again, her record is withdrawn (Bob sees her lost) and she reports Bob lost.
    @Test func changingTheInterfacesRepublishesAndRebrowses() async throws {
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let nowhere = ["lcnone0"]
        let alice = RunningDiscovery.start(
            name: "itest-moving-\(suffix)", port: 40_041, interfaces: nowhere)
        let bob = RunningDiscovery.start(name: "itest-staying-\(suffix)", port: 40_042)
        _ = try await alice.recorder.awaitEvent("alice running") { $0.state == .running }
        _ = try await bob.recorder.awaitEvent("bob running") { $0.state == .running }
        let aliceName = alice.advertisement.instanceName
        let bobName = bob.advertisement.instanceName
        // Alice's browser saw Bob (same avahi-daemon) and dropped him, so only a browser
        // that reports again can show him to her; she published nowhere.
        #expect(await alice.logs.awaitLine(containing: "ignoring \"\(bobName)\""))
        #expect(await alice.logs.awaitLine(containing: "does not exist; not publishing"))

        alice.discovery.useInterfaces([])
        _ = try await bob.recorder.awaitEvent("bob sees alice once she publishes") {
            $0.foundPeer?.instance.name == aliceName
        }
        let (seenAt, _) = try await alice.recorder.awaitEvent("alice reports bob at last") {
            $0.foundPeer?.instance.name == bobName
        }

        let bobCursor = await bob.recorder.events.count
        alice.discovery.useInterfaces(nowhere)
        _ = try await alice.recorder.awaitEvent("alice reports bob lost", from: seenAt + 1) {
            $0.lostInstance?.name == bobName
        }
        _ = try await bob.recorder.awaitEvent("bob sees alice withdrawn", from: bobCursor) {
            $0.lostInstance?.name == aliceName
        }
        try await alice.stop()
        try await bob.stop()
    }

    /// Two clients of one avahi-daemon asking for the same name: the second gets
    /// `AVAHI_ERR_COLLISION` and renames itself; both are published and see each other.
    @Test func twoBackendsWithTheSameNameAreBothPublished() async throws {
        let name = "itest-twin-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        let first = RunningDiscovery.start(name: name, exactName: true, port: 40_021)
        let second = RunningDiscovery.start(name: name, exactName: true, port: 40_022)
        let (_, firstSaw) = try await first.recorder.awaitEvent("first sees second") {
            $0.foundPeer?.announcement?.key == second.key
        }
        let (_, secondSaw) = try await second.recorder.awaitEvent("second sees first") {
            $0.foundPeer?.announcement?.key == first.key
        }
        let names = [firstSaw.foundPeer?.instance.name, secondSaw.foundPeer?.instance.name]
        print("twins published as \(names)")
        #expect(Set(names) == [name, "\(name) #2"])
        try await first.stop()
        try await second.stop()
    }

    /// Another host already holds the name (`LANCHAT_AVAHI_TAKEN_NAME`, published by the
    /// harness). mDNS conflict resolution (RFC 6762 §9) makes one side rename — usually us,
    /// after probing; sometimes the other host, when it sees our announcement first. Either
    /// way both records end up published under different names, and if we renamed, we took
    /// Avahi's alternative "NAME #2" and logged it.
    @Test(
        .enabled(
            if: TestEnvironment.value("LANCHAT_AVAHI_TAKEN_NAME") != nil,
            "SKIPPED: set LANCHAT_AVAHI_TAKEN_NAME to a name another host publishes"))
    func nameConflictsWithAnotherHostEndWithTwoNames() async throws {
        let taken = try #require(TestEnvironment.value("LANCHAT_AVAHI_TAKEN_NAME"))
        let claimant = RunningDiscovery.start(name: taken, exactName: true, port: 40_031)
        let observer = RunningDiscovery.start(name: "itest-referee", port: 40_032, announce: false)
        let contested: Set<String> = [taken, "\(taken) #2"]
        let deadline = ContinuousClock.now + .seconds(20)
        var cursor = 0
        var names: [String: PeerKey?] = [:]  // What the observer currently sees.
        func settled() -> Bool {
            let ours = names.filter { $0.value == claimant.key }.keys
            let theirs = names.filter { $0.value != claimant.key && contested.contains($0.key) }
            return ours.count == 1 && ours.allSatisfy(contested.contains) && theirs.count == 1
        }
        while !settled() {
            let remaining = deadline - ContinuousClock.now
            let seconds = Double(remaining.components.seconds) + 0.001
            let (index, event) = try await observer.recorder.awaitEvent(
                "both contested records under distinct names", within: max(seconds, 0.01),
                from: cursor
            ) { _ in true }
            cursor = index + 1
            if let peer = event.foundPeer { names[peer.instance.name] = peer.announcement?.key }
            if let lost = event.lostInstance { names[lost.name] = nil }
        }
        let ourName = names.first { $0.value == claimant.key }?.key
        print(
            "name conflict settled: we are \(ourName ?? "?"), the other host is \(names.keys.filter { $0 != ourName && contested.contains($0) })"
        )
        if ourName == "\(taken) #2" {
            #expect(claimant.logs.lines.contains { $0.message.contains("is taken") })
        }
        try await claimant.stop()
        try await observer.stop()
    }
}
