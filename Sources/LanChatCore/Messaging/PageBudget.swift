/// How much message text one control API answer may carry.
///
/// A page is asked for by count (`history --limit` up to 1 000, `read` of everything
/// unread), but a message may be 64 KiB, so a full page could be tens of megabytes, past the
/// 16 MiB response line `lanchat` accepts (found by QA: `read` marked 276 large messages read
/// and the CLI refused the answer that carried them, so they were never shown). Pages are cut
/// to `maxTextBytes` of text, which stays under that line even if every byte were written as a
/// six-byte `\u00XX` escape, and say that more is there.
public enum PageBudget {
    /// The texts of one answer, in UTF-8 bytes; a page always holds at least one message.
    public static let maxTextBytes = 2 << 20

    /// How many of `sizes` (text bytes, in the order they are kept) fit: every one while the
    /// texts up to it stay within `budget`, and the first one in any case (a message larger
    /// than the budget is still shown). The budget is a bound, as lanchat(1) says: a page
    /// went one message past it (found by QA: 2 162 622 bytes).
    public static func fitting(_ sizes: some Sequence<Int>, budget: Int = maxTextBytes) -> Int {
        var total = 0
        var count = 0
        for size in sizes {
            guard count == 0 || total + size <= budget else { break }
            total += size
            count += 1
        }
        return count
    }
}
