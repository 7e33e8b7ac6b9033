import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// Presence as the directory derives it (PROTOCOL.md §10): online while a session is up,
/// discovering while a resolved record waits for its handshake, offline otherwise, and a peer
/// that said it is shutting down is offline at once even while its record lingers.
@Suite struct PeerDirectoryPresenceTests {
    static let own = PeerKey(bytes: [UInt8](repeating: 0x11, count: 31) + [0x01])
    static let peer = PeerKey(bytes: [UInt8](repeating: 0x22, count: 31) + [0x02])
    static let record = ServiceInstance(name: "bob (AAAA-BBBB)", interface: "eth0")

    /// A directory that has pinned `peer` (no session, no record yet).
    static func directory() throws -> (PeerDirectory, PeerKey) {
        let own = try #require(Self.own)
        let peer = try #require(Self.peer)
        let pinned = PeerRecord(key: peer, keyTag: "AAAA-BBBB", name: "bob", firstSeen: 1)
        return (
            PeerDirectory(
                ownKey: own, records: [pinned], persistence: InMemoryPeerPersistence([pinned])),
            peer
        )
    }

    static func presence(_ directory: PeerDirectory, _ key: PeerKey) -> Presence? {
        directory.entry(key)?.presence
    }

    static func announce(_ directory: PeerDirectory, _ key: PeerKey, present: Bool) {
        directory.announcement(record, of: key, present: present, hostName: "bob.local", now: 2)
    }

    /// The peer was announced, had a session, and closed it with CLOSE(shutdown).
    static func shutDownAfterASession() throws -> (PeerDirectory, PeerKey) {
        let (directory, peer) = try Self.directory()
        announce(directory, peer, present: true)
        directory.sessionCountChanged(peer, by: 1, at: 3)
        directory.sessionCountChanged(peer, by: -1, at: 4, peerShutDown: true)
        #expect(presence(directory, peer) == .offline)
        return (directory, peer)
    }

    /// Pinned from the peer's own dial (no address), then reached by ours, whose session
    /// the tie-break may close as a duplicate: `who` still shows where the peer listens.
    @Test func anAddressOurDialProvedIsShownFirst() async throws {
        let (directory, peer) = try Self.directory()
        #expect(directory.entry(peer)?.info.addresses == [])
        let listening = Endpoint(host: "127.0.0.1", port: 7203)
        try await directory.recordDialledAddress(peer, listening, at: 5)
        #expect(directory.entry(peer)?.info.addresses == ["127.0.0.1:7203"])
        let other = Endpoint(host: "10.0.0.9", port: 7203)
        try await directory.recordDialledAddress(peer, other, at: 6)
        try await directory.recordDialledAddress(peer, listening, at: 7)
        #expect(directory.entry(peer)?.info.addresses == ["127.0.0.1:7203", "10.0.0.9:7203"])
    }

    @Test func aResolvedRecordIsDiscoveringUntilTheHandshake() throws {
        let (directory, peer) = try Self.directory()
        #expect(Self.presence(directory, peer) == .offline)
        Self.announce(directory, peer, present: true)
        #expect(Self.presence(directory, peer) == .discovering)
        let change = directory.sessionCountChanged(peer, by: 1, at: 3)
        #expect(change?.before == .discovering)
        #expect(change?.after == .online)
    }

    @Test func aLostSessionIsOfflineWhileItsRecordLingers() throws {
        let (directory, peer) = try Self.directory()
        Self.announce(directory, peer, present: true)
        directory.sessionCountChanged(peer, by: 1, at: 3)
        // The record is resolved again while the session is up: still nothing to wait for.
        Self.announce(directory, peer, present: true)
        let change = directory.sessionCountChanged(peer, by: -1, at: 4)
        #expect(change?.after == .offline)
    }

    /// The race scenario 10 met: the peer's record finished probing and was resolved in the
    /// moment after its CLOSE(shutdown); until the goodbye removes it a second later, it
    /// must not bring the departed peer back as discovering.
    @Test func aRecordResolvedAfterAShutdownKeepsThePeerOffline() throws {
        let (directory, peer) = try Self.shutDownAfterASession()
        Self.announce(directory, peer, present: true)
        #expect(Self.presence(directory, peer) == .offline)
    }

    @Test func afterItsRecordIsWithdrawnAShutDownPeerIsDiscoveredAgain() throws {
        let (directory, peer) = try Self.shutDownAfterASession()
        Self.announce(directory, peer, present: false)
        Self.announce(directory, peer, present: true)
        #expect(Self.presence(directory, peer) == .discovering)
    }

    @Test func aWithdrawnInstanceAlsoEndsTheShutdownHold() throws {
        let (directory, peer) = try Self.shutDownAfterASession()
        directory.withdraw(Self.record)
        Self.announce(directory, peer, present: true)
        #expect(Self.presence(directory, peer) == .discovering)
    }

    @Test func aNewSessionEndsTheShutdownHold() throws {
        let (directory, peer) = try Self.shutDownAfterASession()
        directory.sessionCountChanged(peer, by: 1, at: 5)
        directory.sessionCountChanged(peer, by: -1, at: 6)
        Self.announce(directory, peer, present: true)
        #expect(Self.presence(directory, peer) == .discovering)
    }
}
