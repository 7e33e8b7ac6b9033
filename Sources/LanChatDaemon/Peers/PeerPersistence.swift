import LanChatCore
import LanChatStore

/// Where `PeerDirectory` keeps peer records: the pin store. The store is the real one; tests
/// give the directory a double so presence rules run without a database.
protocol PeerPersistence: Sendable {
    func peers() async throws(StoreError) -> [PeerRecord]
    @discardableResult
    func recordPeerSeen(
        _ key: PeerKey, keyTag: String, name: String?, status: String?, statusText: String?,
        endpoint: Endpoint?, at now: Int64
    ) async throws(StoreError) -> Bool
    func addPeer(_ key: PeerKey, keyTag: String, name: String?, at now: Int64)
        async throws(StoreError)
    func addContact(_ key: PeerKey, keyTag: String, alias: String, at now: Int64)
        async throws(StoreError)
    func setLastSeen(
        _ key: PeerKey, at now: Int64, completion: @escaping @Sendable (StoreError?) -> Void)

    // Contacts and trust (`MessageStore+Contacts`); each throws `notFound` for an unknown key.
    func setAlias(_ key: PeerKey, _ alias: String?) async throws(StoreError)
    func makeContact(_ key: PeerKey) async throws(StoreError)
    func markVerified(_ key: PeerKey) async throws(StoreError)
    func block(_ key: PeerKey) async throws(StoreError)
    func unblock(_ key: PeerKey) async throws(StoreError)
    /// Returns how many messages a purge kept (still on their way).
    func forget(_ key: PeerKey, purge: Bool) async throws(StoreError) -> Int
    @discardableResult
    func openRequest(_ key: PeerKey, at now: Int64) async throws(StoreError) -> Bool
    func pinPresentedKey(
        _ key: PeerKey, keyTag: String, insteadOf previous: PeerKey, endpoint: Endpoint?,
        at now: Int64
    ) async throws(StoreError) -> Bool
    @discardableResult
    func recordKeyChange(_ key: PeerKey, from previous: PeerKey, at now: Int64)
        async throws(StoreError) -> Bool
    func linkKey(
        _ key: PeerKey, replacing earlier: PeerKey, verified: Bool, alias: String?,
        newStreamID: @escaping @Sendable () -> UInt64
    ) async throws(StoreError) -> LinkedConversation
}

extension MessageStore: PeerPersistence {}
