extension Duration {
    /// Whole milliseconds, rounded down: for timers that take milliseconds (Avahi's poll
    /// API) and for log lines, where a backoff of 0.75 – 1.25 s must not read as "0 s".
    public var wholeMilliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
