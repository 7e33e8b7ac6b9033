import LanChatCore
import LanChatStore
import Synchronization

@testable import LanChatDaemon

/// A pin store in memory, for directory tests that need no database.
final class InMemoryPeerPersistence: PeerPersistence {
    private let rows = Mutex<[PeerKey: PeerRecord]>([:])

    init(_ records: [PeerRecord] = []) {
        rows.withLock { map in
            for record in records { map[record.key] = record }
        }
    }

    func peers() async throws(StoreError) -> [PeerRecord] { rows.withLock { Array($0.values) } }

    func recordPeerSeen(
        _ key: PeerKey, keyTag: String, name: String?, status: String?, statusText: String?,
        endpoint: Endpoint?, at now: Int64
    ) async throws(StoreError) -> Bool {
        rows.withLock { map in
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

    func setLastSeen(
        _ key: PeerKey, at now: Int64, completion: @escaping @Sendable (StoreError?) -> Void
    ) {
        rows.withLock { $0[key]?.lastSeen = now }
        completion(nil)
    }

    func record(_ key: PeerKey) -> PeerRecord? { rows.withLock { $0[key] } }
}
