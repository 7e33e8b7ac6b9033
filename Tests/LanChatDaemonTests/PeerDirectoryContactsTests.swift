import LanChatControl
import LanChatCore
import LanChatStore
import Testing

@testable import LanChatDaemon

/// The directory's contact changes: each is written to the pin store and then shown, refused
/// changes write nothing, and the request and key-change rules follow PRODUCT.md §6.
@Suite struct PeerDirectoryContactsTests {
    static let own = PeerResolverTests.key(0x11)
    static let bob = PeerResolverTests.key(0x21)
    static let carol = PeerResolverTests.key(0x22)

    static func directory(_ records: [PeerRecord]) -> (PeerDirectory, InMemoryPeerPersistence) {
        let persistence = InMemoryPeerPersistence(records)
        return (PeerDirectory(ownKey: own, records: records, persistence: persistence), persistence)
    }

    static let records = [
        PeerRecord(key: bob, keyTag: "BBBB-2222", name: "bob", firstSeen: 1),
        PeerRecord(key: carol, keyTag: "CCCC-3333", name: "carol", alias: "Caz", firstSeen: 2),
    ]

    @Test func anAliasCollidingWithAnotherPeersNameOrAliasChangesNothing() async throws {
        let (directory, persistence) = Self.directory(Self.records)
        for taken in ["CAROL", "caz", "ABCD-2345", Self.carol.id] {
            await #expect(throws: DirectoryError.self) {
                _ = try await directory.setAlias(Self.bob, to: taken)
            }
        }
        #expect(persistence.record(Self.bob)?.alias == nil)
        #expect(directory.entry(Self.bob)?.record.alias == nil)
        // Its own name is not a collision.
        let entry = try await directory.setAlias(Self.bob, to: "Bob")
        #expect(entry.record.alias == "Bob" && persistence.record(Self.bob)?.alias == "Bob")
    }

    /// `add` changes the entry before its write (the watch stream builds `peer.new` from it);
    /// a write that fails takes the change back: a new key is not left behind, a known one
    /// keeps what it had.
    @Test func anAddWhoseWriteFailsLeavesTheDirectoryAsItWas() async throws {
        let (directory, persistence) = Self.directory(Self.records)
        persistence.failsAdding.withLock { $0 = true }
        let dave = PeerResolverTests.key(0x23)
        await #expect(throws: DirectoryError.self) {
            _ = try await directory.addContact(dave, alias: "dave", at: 10)
        }
        #expect(directory.entry(dave) == nil && persistence.record(dave) == nil)
        let before = directory.entry(Self.carol)
        await #expect(throws: DirectoryError.self) {
            _ = try await directory.addContact(Self.carol, alias: "caroline", at: 11)
        }
        #expect(directory.entry(Self.carol) == before)
        #expect(persistence.record(Self.carol)?.alias == "Caz")
    }

    @Test func addingPinsAheadAndMakesAContactButNotOurselves() async throws {
        let (directory, persistence) = Self.directory(Self.records)
        let dave = PeerResolverTests.key(0x23)
        let entry = try await directory.addContact(dave, alias: "dave", at: 5)
        #expect(entry.pinned && entry.record.contact && entry.record.alias == "dave")
        #expect(persistence.record(dave)?.contact == true)
        await #expect(throws: DirectoryError.self) {
            _ = try await directory.addContact(Self.own, alias: "me", at: 5)
        }
        #expect(directory.entry(Self.own) == nil)
    }

    @Test func requestsOpenOnlyUnderTheContactsPolicyAndForNonContacts() async throws {
        let (directory, persistence) = Self.directory(Self.records)
        #expect(try await !directory.admitMessages(from: Self.bob, at: 10))
        directory.setAcceptPolicy(.contacts)
        #expect(try await directory.admitMessages(from: Self.bob, at: 11))
        #expect(persistence.record(Self.bob)?.requestSince == 11)
        // Still a request for the next messages, even if the policy changes back.
        directory.setAcceptPolicy(.anyone)
        #expect(try await directory.admitMessages(from: Self.bob, at: 12))
        try await directory.makeContact(Self.bob)
        #expect(try await !directory.admitMessages(from: Self.bob, at: 13))
        #expect(persistence.record(Self.bob)?.requestSince == nil)
        directory.setAcceptPolicy(.contacts)
        #expect(try await !directory.admitMessages(from: Self.bob, at: 14))
    }

    /// Found by QA: "alice " beside "alice" was no key change.
    @Test func aNameThatOnlyLooksAlikeIsTheSameName() async throws {
        for variant in ["bob ", " Bob", "b\u{200B}ob", "ｂｏｂ", "BOB\u{00A0}"] {
            #expect(
                PeerDirectory.comparableName(variant) == "bob",
                "\(variant.unicodeScalars.map(\.value))")
        }
        #expect(PeerDirectory.comparableName("bob  smith") == "bob smith")
        #expect(PeerDirectory.comparableName("bobby") != "bob")
        let newBobKey = PeerResolverTests.key(0x25)
        let (directory, _) = Self.directory(
            Self.records + [
                PeerRecord(key: newBobKey, keyTag: "EEEE-5555", name: "", firstSeen: 9)
            ])
        let earlier = try await directory.noteNameClash(newBobKey, name: "bob ", at: 10)
        #expect(earlier?.key == Self.bob)
    }

    @Test func blockingDropsTheRequestAndVerificationSettlesAKeyChange() async throws {
        let newBobKey = PeerResolverTests.key(0x24)
        let (directory, persistence) = Self.directory(
            Self.records + [
                PeerRecord(key: newBobKey, keyTag: "DDDD-4444", name: "", firstSeen: 9)
            ])
        // The new key announces bob's name: recorded once, against the earlier bob.
        let earlier = try await directory.noteNameClash(newBobKey, name: "Bob", at: 10)
        #expect(earlier?.key == Self.bob)
        #expect(try await directory.noteNameClash(newBobKey, name: "Bob", at: 11) == nil)
        #expect(directory.keyChanges.map(\.new.key) == [newBobKey])
        // The earlier key saying its own name is no key change.
        #expect(try await directory.noteNameClash(Self.bob, name: "bob", at: 12) == nil)
        _ = try await directory.markVerified(newBobKey)
        #expect(directory.keyChanges.isEmpty)
        #expect(persistence.record(newBobKey)?.trust == .verified)

        directory.setAcceptPolicy(.contacts)
        _ = try await directory.admitMessages(from: Self.carol, at: 20)
        let blocked = try await directory.block(Self.carol)
        #expect(blocked.record.trust == .blocked && blocked.record.requestSince == nil)
        #expect(
            directory.isBlocked(Self.carol) && persistence.record(Self.carol)?.trust == .blocked)
        _ = try await directory.unblock(Self.carol)
        #expect(!directory.isBlocked(Self.carol))
        await #expect(throws: DirectoryError.self) { _ = try await directory.unblock(Self.carol) }
    }

    /// PROTOCOL.md §3.8 row 7 names the earlier key the user knows: a contact added under an
    /// alias (it never said its name) counts, and of several earlier keys the verified one
    /// is named, not the oldest.
    @Test func aNameClashNamesTheEarlierKeyThatMatters() async throws {
        let dave = PeerResolverTests.key(0x23)
        let stranger = PeerResolverTests.key(0x24)
        let verifiedBob = PeerResolverTests.key(0x25)
        let thirdBob = PeerResolverTests.key(0x26)
        let (directory, _) = Self.directory(
            Self.records + [
                PeerRecord(key: stranger, keyTag: "EEEE-5555", name: "", firstSeen: 9),
                PeerRecord(
                    key: verifiedBob, keyTag: "FFFF-6666", name: "bob", trust: .verified,
                    firstSeen: 5),
                PeerRecord(key: thirdBob, keyTag: "GGGG-7777", name: "", firstSeen: 10),
            ])
        _ = try await directory.addContact(dave, alias: "dave", at: 3)
        #expect(try await directory.noteNameClash(stranger, name: "Dave", at: 11)?.key == dave)
        #expect(
            try await directory.noteNameClash(thirdBob, name: "bob", at: 12)?.key == verifiedBob)
    }

    @Test func removeForgetsAliasVerificationAndContactButKeepsABlock() async throws {
        let (directory, persistence) = Self.directory(Self.records)
        _ = try await directory.markVerified(Self.carol)
        try await directory.makeContact(Self.carol)
        let removed = try await directory.forget(Self.carol, purge: false).entry
        #expect(removed.record.alias == nil && !removed.record.contact)
        #expect(removed.record.trust == .unverified)
        #expect(persistence.record(Self.carol)?.alias == nil)
        _ = try await directory.block(Self.bob)
        #expect(try await directory.forget(Self.bob, purge: true).entry.record.trust == .blocked)
    }

    @Test func linkingMovesTheEarlierKeysStandingOnlyWhenItIsAway() async throws {
        let newBobKey = PeerResolverTests.key(0x24)
        let (directory, persistence) = Self.directory(
            Self.records + [
                PeerRecord(key: newBobKey, keyTag: "DDDD-4444", name: "bob", firstSeen: 9)
            ])
        _ = try await directory.markVerified(Self.bob)
        try await directory.makeContact(Self.bob)
        // No warning yet: nothing to link.
        await #expect(throws: DirectoryError.self) {
            _ = try await directory.linkKey(newBobKey, verified: true)
        }
        _ = try await directory.noteNameClash(newBobKey, name: "bob", at: 10)
        // The earlier key online is still in use: refused, nothing changed.
        directory.sessionCountChanged(Self.bob, by: 1, at: 11)
        await #expect(throws: DirectoryError.self) {
            _ = try await directory.linkKey(newBobKey, verified: true)
        }
        #expect(persistence.record(Self.bob)?.trust == .verified)
        #expect(directory.keyChanges.map(\.new.key) == [newBobKey])

        directory.sessionCountChanged(Self.bob, by: -1, at: 12)
        // bob's address answered with the new key: an identity alert on the earlier one.
        directory.modify(Self.bob) {
            $0.identityAlert = IdentityAlert(
                address: Endpoint(host: "127.0.0.1", port: 4), presented: newBobKey, at: 12)
        }
        let outcome = try await directory.linkKey(newBobKey, verified: false)
        // Linked, it is no alert any more (found by QA: the WARNING stayed, about the key
        // just trusted).
        #expect(directory.entry(Self.bob)?.identityAlert == nil)
        #expect(outcome.earlier.key == Self.bob && outcome.entry.key == newBobKey)
        for record in [outcome.entry.record, persistence.record(newBobKey)] {
            #expect(record?.alias == "bob" && record?.contact == true)
            #expect(record?.trust == .unverified && record?.keyChangedFrom == nil)
        }
        for record in [outcome.earlier.record, persistence.record(Self.bob)] {
            #expect(record?.alias == nil && record?.contact == false)
            #expect(record?.trust == .unverified)
        }
        #expect(directory.keyChanges.isEmpty)
        // The name now resolves to the new key alone (its alias comes first).
        #expect(try directory.resolve("bob").key == newBobKey)
        // Linked once: the earlier key is retired, nothing is linked twice.
        #expect(directory.entry(Self.bob)?.record.replacedBy == newBobKey)
        do {
            _ = try await directory.linkKey(newBobKey, verified: false)
            Issue.record("linked twice")
        } catch {
            #expect(
                error.controlError.message == "bob (DDDD-4444) took over bob (BBBB-2222) already")
        }
        // A third key with the name is warned about against the new key, not the retired one.
        let thirdKey = PeerResolverTests.key(0x25)
        let third = PeerRecord(key: thirdKey, keyTag: "EEEE-5555", name: "bob", firstSeen: 20)
        try await persistence.addPeer(thirdKey, keyTag: third.keyTag, name: "bob", at: 20)
        directory.pin(third)
        #expect(try await directory.noteNameClash(thirdKey, name: "bob", at: 21)?.key == newBobKey)
    }

    /// A block is lifted by `unblock` alone: a link with a blocked key on either side is
    /// refused, nothing changed (found by QA: it made a blocked key trusted, and its
    /// sessions came back).
    @Test func aLinkWithABlockedKeyIsRefused() async throws {
        let newBobKey = PeerResolverTests.key(0x24)
        for blockedKey in [newBobKey, Self.bob] {
            let (directory, persistence) = Self.directory(
                Self.records + [
                    PeerRecord(key: newBobKey, keyTag: "DDDD-4444", name: "bob", firstSeen: 9)
                ])
            _ = try await directory.noteNameClash(newBobKey, name: "bob", at: 10)
            _ = try await directory.block(blockedKey)
            do {
                _ = try await directory.linkKey(newBobKey, verified: true)
                Issue.record("linked with a blocked key")
            } catch {
                #expect(error.controlError.message.contains("is blocked: unblock it first"))
            }
            #expect(persistence.record(blockedKey)?.trust == .blocked)
            #expect(persistence.record(Self.bob)?.replacedBy == nil)
        }
    }

    /// The usual order: the numbers compared first (the warning is settled), the link
    /// after. The link is still offered, and keeps the verification.
    @Test func aVerifiedKeyCanStillTakeTheEarlierKeyOver() async throws {
        let newBobKey = PeerResolverTests.key(0x24)
        let (directory, persistence) = Self.directory(
            Self.records + [
                PeerRecord(key: newBobKey, keyTag: "DDDD-4444", name: "bob", firstSeen: 9)
            ])
        _ = try await directory.noteNameClash(newBobKey, name: "bob", at: 10)
        let verified = try await directory.markVerified(newBobKey)
        #expect(directory.keyChanges.isEmpty)
        #expect(directory.linkable(verified)?.key == Self.bob)
        let outcome = try await directory.linkKey(newBobKey, verified: false)
        #expect(outcome.entry.record.trust == .verified)
        #expect(persistence.record(newBobKey)?.trust == .verified)
        #expect(directory.linkable(outcome.entry) == nil)
    }

    /// The alias a linked key gets: the earlier key's, else its own, else the earlier name;
    /// never one another peer has.
    @Test func aLinkedKeyNeverTakesAnAliasAnotherPeerHas() async throws {
        let newBobKey = PeerResolverTests.key(0x24)
        let records = [
            PeerRecord(key: Self.bob, keyTag: "BBBB-2222", name: "bob", firstSeen: 1),
            PeerRecord(key: Self.carol, keyTag: "CCCC-3333", name: "carol", firstSeen: 2),
            PeerRecord(
                key: newBobKey, keyTag: "DDDD-4444", name: "bob", alias: "bob2", firstSeen: 9),
        ]
        let (directory, _) = Self.directory(records)
        _ = try await directory.noteNameClash(newBobKey, name: "bob", at: 10)
        // Its own alias wins over the earlier key's bare name.
        #expect(
            try await directory.linkKey(newBobKey, verified: false).entry.record.alias == "bob2")

        let (other, _) = Self.directory(
            [
                PeerRecord(
                    key: Self.bob, keyTag: "BBBB-2222", name: "bob", alias: "Robert", firstSeen: 1),
                PeerRecord(key: newBobKey, keyTag: "DDDD-4444", name: "bob", firstSeen: 9),
            ])
        _ = try await other.noteNameClash(newBobKey, name: "bob", at: 10)
        // carol took the alias "Robert" meanwhile: the new key does not get it too.
        other.pin(
            PeerRecord(
                key: Self.carol, keyTag: "CCCC-3333", name: "carol", alias: "robert", firstSeen: 2))
        #expect(try await other.linkKey(newBobKey, verified: false).entry.record.alias == nil)
    }

    /// Two reinstalls in a row, the middle key never settled: once the newest took the first
    /// over, the middle one's name raises no warning about it (after a restart too), and a
    /// second link keeps the alias it got.
    @Test func aKeyThatTookOverIsNoKeyChangeOfAnotherEarlierKey() async throws {
        let middle = PeerResolverTests.key(0x24)
        let newest = PeerResolverTests.key(0x25)
        let records = [
            PeerRecord(
                key: Self.bob, keyTag: "BBBB-2222", name: "hb", alias: "A1", contact: true,
                firstSeen: 1),
            PeerRecord(key: middle, keyTag: "DDDD-4444", name: "hb", firstSeen: 5),
            PeerRecord(key: newest, keyTag: "EEEE-5555", name: "hb", firstSeen: 9),
        ]
        let (directory, persistence) = Self.directory(records)
        _ = try await directory.noteNameClash(middle, name: "hb", at: 6)
        _ = try await directory.noteNameClash(newest, name: "hb", at: 10)
        #expect(directory.linkable(try #require(directory.entry(newest)))?.key == Self.bob)
        _ = try await directory.linkKey(newest, verified: false)
        _ = try await directory.setAlias(middle, to: "B2")

        // A restart: the directory is loaded again from the pin store.
        let restarted = PeerDirectory(
            ownKey: Self.own, records: try await persistence.peers(), persistence: persistence)
        #expect(try await restarted.noteNameClash(newest, name: "hb", at: 20) == nil)
        #expect(restarted.keyChanges.map(\.new.key) == [middle])
        #expect(try restarted.resolve("A1").key == newest)
    }
}
