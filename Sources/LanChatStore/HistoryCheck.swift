/// The rule that keeps the daemon from running silently on a store that lost its history,
/// applied at start by `MessageStore.open(path:marker:)` before anything is migrated:
///
/// * the marker names a store id and the opened store holds no id (no tables: a `-wal`
///   deleted or damaged after a crash, before the first checkpoint; a deleted store file) or
///   another one (a different store put in its place) → refused as `corrupt`;
/// * the store is the marker's but older than it (a lower `generation`: a restored backup,
///   or a `-wal` lost after a crash), or, with a version-1 marker, holds fewer messages than
///   at the last clean stop → a warning only, since a restore is legitimate and the two cannot
///   be told apart; the store then starts every outgoing stream afresh (`wentBack`), as peers
///   have seen seqs of ours that it no longer holds;
/// * no marker (first start, or a data directory from before markers) → the marker is written.
///
/// A crash with the `-wal` intact passes: SQLite replays it, so the id and the rows are there.
enum HistoryCheck {
    struct Contents: Sendable, Equatable {
        /// nil when the store has no `store_identity` row (a new or emptied file).
        var storeID: String?
        var messages: Int
        var peers: Int
        /// nil before schema v12.
        var generation: Int64? = nil

        var marker: StoreMarker? {
            storeID.map {
                StoreMarker(
                    storeID: $0, messages: messages, peers: peers, generation: generation)
            }
        }
    }

    /// What a store that passed says: the warnings worth logging, and whether it went back
    /// in time (fewer messages than the marker recorded).
    struct Verdict: Sendable, Equatable {
        var warnings: [String] = []
        var wentBack = false
        /// What the check read of the store (nil when it read nothing): the start records it
        /// in the new marker instead of counting the rows again.
        var found: Contents?
    }

    /// Throws when the store lost its history.
    static func verify(
        _ found: Contents, against marker: StoreMarker, store: String, markerPath: String
    ) throws(StoreError) -> Verdict {
        let remedy =
            "Restore the latest backup (lanchat backup) to \(store) and start again; to keep this store as it is, move \(markerPath) aside first."
        guard let storeID = found.storeID else {
            throw StoreError(
                .corrupt,
                "\(store) lost its history: it holds no lanchat data, but \(markerPath) names the store that was here (id \(marker.storeID); \(marker.messages) messages and \(marker.peers) peers when last recorded). A \(store)-wal deleted or damaged after a crash, or a deleted store file, does this. \(remedy)"
            )
        }
        guard storeID == marker.storeID else {
            throw StoreError(
                .corrupt,
                "\(store) is not the store \(markerPath) names (store id \(storeID), expected \(marker.storeID)): it was replaced. \(remedy)"
            )
        }
        let afresh =
            "Every outgoing stream starts afresh, so messages still queued go out again (peers drop those they already have)."
        if let recorded = marker.generation, let generation = found.generation,
            generation < recorded
        {
            return Verdict(
                warnings: [
                    "\(store) is older than the store last used here (generation \(generation), \(recorded) recorded; it holds \(found.messages) messages, \(marker.messages) at the last clean stop): fine after restoring a backup, otherwise a log was lost after a crash. \(afresh)"
                ], wentBack: true)
        }
        guard found.messages >= marker.messages else {
            return Verdict(
                warnings: [
                    "\(store) holds \(found.messages) messages, \(marker.messages) at the last clean stop: fine after restoring a backup, otherwise messages were lost. \(afresh)"
                ], wentBack: true)
        }
        return Verdict()
    }
}
