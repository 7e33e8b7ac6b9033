extension Array {
    /// The elements ordered by `key` (`areInIncreasingOrder` compares keys), equal keys in
    /// their present order (Swift's sort is stable).
    ///
    /// Sorts the keys, not the elements: the inbox's conversations each carry their last
    /// message, strings and all, and moving them at every step of a sort took longer than
    /// the query that read them (docs/benchmarks.md, round 8). Each element is copied once.
    /// Inlinable so that callers in other modules get it specialised for their key: generic,
    /// each comparison of the inbox's (Int64, Int64) keys went through value witnesses,
    /// retains and copies, and was half of `conversations()` (round 15).
    @inlinable
    public func sorted<Key>(
        byKey key: (Element) -> Key, by areInIncreasingOrder: (Key, Key) -> Bool
    ) -> [Element] {
        let keys = map(key)
        return keys.indices.sorted { areInIncreasingOrder(keys[$0], keys[$1]) }.map { self[$0] }
    }
}
