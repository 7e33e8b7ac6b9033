/// One kind of log line a peer's frames can cause, at most once per `interval`; the next one
/// says how many were held back (found by QA: 3 000 MSGs, each on a new stream or for an
/// unknown group, wrote 3 000 to 6 000 lines in under a second). Pure: a link owns one per
/// kind and passes the time in.
struct LogLineBudget {
    static let interval: Duration = .seconds(10)

    private var lastLogged: ContinuousClock.Instant?
    private var heldBack = 0

    /// Nil: hold this line back. Else log it, with the number held back since the last.
    mutating func take(at now: ContinuousClock.Instant) -> Int? {
        if let lastLogged, now - lastLogged < Self.interval {
            heldBack += 1
            return nil
        }
        lastLogged = now
        defer { heldBack = 0 }
        return heldBack
    }

    /// ` (and 12 more like it)` when some were held back, else nothing.
    static func suffix(_ heldBack: Int) -> String {
        heldBack == 0 ? "" : " (and \(heldBack) more like it before)"
    }
}
