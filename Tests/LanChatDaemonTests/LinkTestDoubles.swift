import LanChatCore
import LanChatStore
import Synchronization

@testable import LanChatDaemon

/// A pin store in memory, for directory tests that need no database.
final class InMemoryPeerPersistence: PeerPersistence {
    private let rows = Mutex<[PeerKey: PeerRecord]>([:])
    /// Awaited by `recordPeerSeen` before it writes (a first contact's pin): a test holds a
    /// session's start there.
    private let beforeSeen: (@Sendable () async -> Void)?

    init(_ records: [PeerRecord] = [], beforeSeen: (@Sendable () async -> Void)? = nil) {
        self.beforeSeen = beforeSeen
        rows.withLock { map in
            for record in records { map[record.key] = record }
        }
    }

    func peers() async throws(StoreError) -> [PeerRecord] { rows.withLock { Array($0.values) } }

    func recordPeerSeen(
        _ key: PeerKey, keyTag: String, name: String?, status: String?, statusText: String?,
        endpoint: Endpoint?, at now: Int64
    ) async throws(StoreError) -> Bool {
        await beforeSeen?()
        return rows.withLock { map in
            let isNew = map[key] == nil
            var record =
                map[key] ?? PeerRecord(key: key, keyTag: keyTag, name: "", firstSeen: now)
            if let name { record.name = name }
            if let status { record.status = status }
            if let statusText { record.statusText = statusText }
            record.lastSeen = now
            map[key] = record
            return isNew
        }
    }

    func addPeer(_ key: PeerKey, keyTag: String, name: String?, at now: Int64)
        async throws(StoreError)
    {
        rows.withLock { map in
            if map[key] == nil {
                map[key] = PeerRecord(key: key, keyTag: keyTag, name: name ?? "", firstSeen: now)
            }
        }
    }

    /// Set: `addContact` fails as a full disk would, writing nothing.
    let failsAdding = Mutex(false)

    func addContact(_ key: PeerKey, keyTag: String, alias: String, at now: Int64)
        async throws(StoreError)
    {
        if failsAdding.withLock({ $0 }) { throw StoreError(.unavailable, "disk full") }
        rows.withLock { map in
            var record =
                map[key] ?? PeerRecord(key: key, keyTag: keyTag, name: "", firstSeen: now)
            record.alias = alias
            record.contact = true
            record.requestSince = nil
            map[key] = record
        }
    }

    func setLastSeen(
        _ key: PeerKey, at now: Int64, completion: @escaping @Sendable (StoreError?) -> Void
    ) {
        rows.withLock { $0[key]?.lastSeen = now }
        completion(nil)
    }

    func record(_ key: PeerKey) -> PeerRecord? { rows.withLock { $0[key] } }

    // Contacts: the same changes as `MessageStore+Contacts`, on the rows.
    private func update(_ key: PeerKey, _ change: (inout PeerRecord) -> Void)
        throws(StoreError)
    {
        let found = rows.withLock { map in
            guard var record = map[key] else { return false }
            change(&record)
            map[key] = record
            return true
        }
        if !found { throw StoreError(.notFound, "unknown peer") }
    }

    func setAlias(_ key: PeerKey, _ alias: String?) async throws(StoreError) {
        try update(key) { $0.alias = alias }
    }
    func makeContact(_ key: PeerKey) async throws(StoreError) {
        try update(key) {
            $0.contact = true
            $0.requestSince = nil
        }
    }
    func markVerified(_ key: PeerKey) async throws(StoreError) {
        try update(key) {
            $0.trust = .verified
            $0.settleKeyChange()
        }
    }
    func block(_ key: PeerKey) async throws(StoreError) {
        try update(key) {
            $0.trust = .blocked
            $0.requestSince = nil
            $0.settleKeyChange()
        }
    }
    func unblock(_ key: PeerKey) async throws(StoreError) {
        try update(key) { $0.trust = .unverified }
    }
    func forget(_ key: PeerKey, purge: Bool) async throws(StoreError) -> Int {
        try update(key) {
            $0.dropStanding()
            $0.settleKeyChange()
        }
        return 0  // no messages here
    }
    func openRequest(_ key: PeerKey, at now: Int64) async throws(StoreError) -> Bool {
        var opened = false
        try update(key) {
            guard !$0.contact, $0.requestSince == nil else { return }
            $0.requestSince = now
            opened = true
        }
        return opened
    }
    func recordKeyChange(_ key: PeerKey, from previous: PeerKey, at now: Int64)
        async throws(StoreError) -> Bool
    {
        var recorded = false
        try update(key) {
            guard $0.keyChangedFrom == nil, $0.keyChangeSettled != previous else { return }
            $0.keyChangedFrom = previous
            recorded = true
        }
        return recorded
    }
    func pinPresentedKey(
        _ key: PeerKey, keyTag: String, insteadOf previous: PeerKey, endpoint: Endpoint?,
        at now: Int64
    ) async throws(StoreError) -> Bool {
        rows.withLock { map in
            if map[key] == nil {
                map[key] = PeerRecord(
                    key: key, keyTag: keyTag, name: "", firstSeen: now, lastSeen: now)
            }
        }
        return try await recordKeyChange(key, from: previous, at: now)
    }
    /// The peer rows' part of `MessageStore.linkKey`; there are no messages here.
    func linkKey(
        _ key: PeerKey, replacing earlier: PeerKey, verified: Bool, alias: String?,
        newStreamID: @escaping @Sendable () -> UInt64
    ) async throws(StoreError) -> LinkedConversation {
        guard let previous = record(earlier), previous.replacedBy == nil else {
            throw StoreError(.notFound, "unknown or replaced peer")
        }
        try update(earlier) { $0.retire(replacedBy: key) }
        try update(key) { $0.takeOver(previous, alias: alias, verified: verified) }
        return LinkedConversation(moved: 0, queued: [])
    }
}

/// A session without a socket: records what the link writes and whether it closed it, and
/// hands each write to the test in order through `writes`.
final class FakeSession: LinkSession {
    enum Write: Sendable, Equatable {
        case control([AppMessage])
        case messages([AppMessage])
        case closed(CloseReason)
    }

    let remoteKey: PeerKey
    let sessionTag: String
    let dialledAddress: Endpoint?
    let establishedAt: ContinuousClock.Instant
    /// Who dialled: the peer (inbound) or us (outbound).
    let dialledByPeer: Bool
    /// Negotiated like a current peer's: groups included, unless a test plays an older one.
    let capabilities: UInt64
    let writes: AsyncStream<Write>
    private let continuation: AsyncStream<Write>.Continuation
    private let closedWith = Mutex<CloseReason?>(nil)
    /// Called by `sendControl` before the write, on the caller's thread (the store's writer
    /// for an ACK, inside its commit hook): a test holds the link's chunk there.
    private let beforeControl: (@Sendable ([AppMessage]) -> Void)?

    init(
        peer: PeerKey, tag: String, dialledByPeer: Bool = true,
        establishedAt: ContinuousClock.Instant = .now,
        capabilities: UInt64 = Capabilities.supported,
        beforeControl: (@Sendable ([AppMessage]) -> Void)? = nil
    ) {
        self.beforeControl = beforeControl
        self.capabilities = capabilities
        remoteKey = peer
        sessionTag = tag
        self.dialledByPeer = dialledByPeer
        dialledAddress = dialledByPeer ? nil : Endpoint(host: "127.0.0.1", port: 7000)
        self.establishedAt = establishedAt
        (writes, continuation) = AsyncStream.makeStream(of: Write.self)
    }

    var description: String { "fake session \(sessionTag)" }
    var closeReason: CloseReason? { closedWith.withLock { $0 } }

    func initiatorKey(ownKey: PeerKey) -> PeerKey { dialledByPeer ? remoteKey : ownKey }

    func send(_ messages: [AppMessage]) async throws {
        guard closeReason == nil else { throw CancellationError() }
        continuation.yield(.messages(messages))
    }

    func sendControl(_ messages: [AppMessage]) {
        guard closeReason == nil else { return }
        beforeControl?(messages)
        continuation.yield(.control(messages))
    }

    func close(_ reason: CloseReason) async {
        let first = closedWith.withLock { current in
            guard current == nil else { return false }
            current = reason
            return true
        }
        if first {
            continuation.yield(.closed(reason))
            continuation.finish()
        }
    }
}
