/// How much one control API answer of messages may carry.
///
/// A page is asked for by count (`history --limit` up to 1 000, `read` of everything
/// unread), but a message may be 64 KiB, so a full page could be tens of megabytes, past the
/// 16 MiB response line `lanchat` accepts (found by QA: `read` marked 276 large messages read
/// and the CLI refused the answer that carried them, so they were never shown). Pages are cut
/// to `maxBytes`, counted by `cost`: each message's text, and what the rest of its object
/// takes (ids, times, status; a group message's recipients). Cost counted text only, and
/// 50 000 short unread messages made an answer of 32 MB (found by QA, as with 500 messages
/// to a group of 256). Every byte counted may take six in JSON (a `\u00XX` escape), and
/// six times the budget stays under the 16 MiB line.
public enum PageBudget {
    /// One answer's messages, as `cost` counts them; a page always holds at least one.
    public static let maxBytes = 2 << 20

    /// A message object's JSON beside its text is about 400 bytes (two ids, a key tag,
    /// times, status, a group's id).
    public static let perMessage = 512

    /// One entry of a group message's `recipients` (a peer id, a status, two times).
    public static let perRecipient = 256

    /// What a message counts against `maxBytes`.
    public static func cost(textBytes: Int, recipients: Int = 0) -> Int {
        textBytes + perMessage + recipients * perRecipient
    }

    /// How many of `costs` (in the order they are kept) fit: every one while the costs up to
    /// it stay within `budget`, and the first one in any case (a message larger than the
    /// budget is still shown). The budget is a bound, as lanchat(1) says: a page went one
    /// message past it (found by QA: 2 162 622 bytes).
    public static func fitting(_ costs: some Sequence<Int>, budget: Int = maxBytes) -> Int {
        var total = 0
        var count = 0
        for cost in costs {
            guard count == 0 || total + cost <= budget else { break }
            total += cost
            count += 1
        }
        return count
    }
}
