/// Levenshtein distance between two short strings (names, aliases), by Character: what a
/// "did you mean" needs, and no more. Pure.
public enum EditDistance {
    /// The distance, or nil once it is certainly above `limit` (each row's minimum only
    /// grows), so comparing a query with many names stays cheap.
    public static func between(_ a: String, _ b: String, atMost limit: Int) -> Int? {
        let a = Array(a)
        let b = Array(b)
        guard abs(a.count - b.count) <= limit else { return nil }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(
                    previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            guard current.min() ?? 0 <= limit else { return nil }
            previous = current
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
