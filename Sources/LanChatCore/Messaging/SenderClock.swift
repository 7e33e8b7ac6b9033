/// The time a received message shows (PROTOCOL.md §9.1: `sent_at`, the sender's clock).
/// The sender's clock is trusted only as far as it can be right (found by QA: a peer dated
/// messages 9999-12-31 and year 0, and `history` and `inbox` showed them so; a future date
/// also kept its conversation at the top of the inbox for good). A message cannot have been
/// written after we received it, nor before any lanchat could write it: outside those
/// bounds it shows the time we received it. A message the sender queued for weeks keeps
/// its own date.
public enum SenderClock {
    /// 2020-01-01T00:00:00Z, in milliseconds: before lanchat, and before any clock that
    /// has been set (a board without a real-time clock starts in 1970).
    public static let earliestPlausible: Int64 = 1_577_836_800_000

    /// `sentAt` when it can be right, else `receivedAt`; a date a little ahead of ours
    /// (the two clocks disagree) becomes ours.
    public static func shownTime(sentAt: Int64, receivedAt: Int64) -> Int64 {
        guard sentAt >= earliestPlausible else { return receivedAt }
        return min(sentAt, receivedAt)
    }
}
