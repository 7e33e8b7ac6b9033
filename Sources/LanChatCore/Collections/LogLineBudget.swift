/// One kind of log line that the other side can cause at will, written at most once per
/// `interval`; the next one says how many were held back. Pure: its owner passes the time in
/// (a link for what a peer's frames cause, found by QA: 3 000 MSGs wrote 6 000 lines in under
/// a second; the transport, behind a lock, for refused connections).
public struct LogLineBudget: Sendable {
    public let interval: Duration
    private var lastLogged: ContinuousClock.Instant?
    private var heldBack = 0

    public init(interval: Duration) {
        self.interval = interval
    }

    /// Nil: hold this line back. Else log it, with the number held back since the last.
    public mutating func take(at now: ContinuousClock.Instant) -> Int? {
        if let lastLogged, now - lastLogged < interval {
            heldBack += 1
            return nil
        }
        lastLogged = now
        defer { heldBack = 0 }
        return heldBack
    }

    /// ` (and 12 more like it before)` when some were held back, else nothing.
    public static func suffix(_ heldBack: Int) -> String {
        heldBack == 0 ? "" : " (and \(heldBack) more like it before)"
    }
}
