import Glibc

/// The checks of each method's params that do not need the daemon's state, in one place so
/// that the daemon makes all of them *before* it changes anything (an error answer means
/// nothing changed), and the fuzz target (`Fuzz/ControlRequest`) runs the very same code.
/// What needs the daemon (resolving a PEER, finding a message id) stays with its handler,
/// which also resolves before it writes.
///
/// Limits are PRODUCT.md §7 and lanchat-api(7): wrong shape or range is `invalidParams`
/// (exit 64), unacceptable text is `badInput` (exit 65).
public enum ParamsLimits {
    /// Message text, in UTF-8 bytes: 1 … 65 536 (the same as the wire's, PROTOCOL.md §9.1).
    public static let maxTextBytes = 65_536
    /// Messages in one `send` (`texts`).
    public static let maxTextsPerRequest = 10_000
    public static let maxStatusTextBytes = 128
    /// `send` `timeout`, in seconds: 0 … 86 400.
    public static let maxTimeoutSeconds = 86_400.0
    /// `send` `timeout` when `wait` or `waitRead` is given without one.
    public static let defaultTimeoutSeconds = 30.0
    /// `history` `limit`: 1 … 1000, default 50.
    public static let historyLimits = 1...1000
    public static let defaultHistoryLimit = 50
}

extension String {
    /// U+0000 is refused in every text lanchat stores or sends: SQLite and C strings end at
    /// it, so an accepted NUL would silently cut the text after it was acknowledged.
    /// Searched with `memchr` over the contiguous UTF-8 (every text of a `send` is checked;
    /// iterating the `UTF8View` byte by byte cost ~1 % of a throughput run).
    public var containsNUL: Bool {
        utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        } ?? utf8.contains(0)
    }
}

extension SendParams {
    /// The messages to store, each checked: exactly one of `text` and `texts`, 1 … 10 000
    /// messages, each not only white space, at most 65 536 bytes and without U+0000.
    public func validatedTexts() throws(ControlError) -> [String] {
        let texts: [String]
        switch (text, self.texts) {
        case (let text?, nil): texts = [text]
        case (nil, let many?): texts = many
        default: throw .invalidParams("give exactly one of \"text\" and \"texts\"")
        }
        guard !texts.isEmpty else { throw .badInput("no message to send") }
        guard texts.count <= ParamsLimits.maxTextsPerRequest else {
            throw .badInput("at most \(ParamsLimits.maxTextsPerRequest) messages per request")
        }
        // Which of `texts` is wrong, by its place (found by QA: "empty message" of three).
        let many = self.texts != nil
        for (index, text) in texts.enumerated() {
            let which = many ? "texts[\(index)]: " : ""
            guard !text.isEmpty else { throw .badInput(which + "empty message") }
            guard !text.isBlankText else {
                throw .badInput(which + "a message of only white space or invisible characters")
            }
            guard text.utf8.count <= ParamsLimits.maxTextBytes else {
                throw .badInput(
                    which + "message of \(text.utf8.count) bytes is over the limit of "
                        + "\(ParamsLimits.maxTextBytes)")
            }
            guard !text.containsNUL else {
                throw .badInput(
                    which + "a message contains U+0000 (NUL), which lanchat does not send")
            }
        }
        return texts
    }

    /// Seconds to wait for delivery or reading; nil when neither `wait` nor `waitRead` is
    /// set. A `timeout` out of 0 … 86 400 is refused even without a wait, so a script learns
    /// of its mistake before anything is stored.
    public func validatedWaitSeconds() throws(ControlError) -> Double? {
        if let timeout {
            guard timeout.isFinite, timeout >= 0, timeout <= ParamsLimits.maxTimeoutSeconds
            else {
                throw .invalidParams("timeout must be 0 to 86400 seconds")
            }
        }
        guard wait == true || waitRead == true else { return nil }
        return timeout ?? ParamsLimits.defaultTimeoutSeconds
    }
}

extension PresenceParams {
    /// The status text, if given: at most 128 bytes, without U+0000, and not only white
    /// space or invisible characters (as a name; `""` clears it; found by QA).
    public func validate() throws(ControlError) {
        guard let text else { return }
        guard text.isEmpty || !text.isBlankText else {
            throw .badInput(
                "a status text of only white space or invisible characters; \"\" clears it")
        }
        guard text.utf8.count <= ParamsLimits.maxStatusTextBytes else {
            throw .badInput("status text is over \(ParamsLimits.maxStatusTextBytes) bytes")
        }
        guard !text.containsNUL else {
            throw .badInput("the status text contains U+0000 (NUL)")
        }
    }
}

extension HistoryParams {
    /// The page size: `limit` within 1 … 1000, else 50; and at most one of `before`, `after`.
    public func validatedLimit() throws(ControlError) -> Int {
        let limit = self.limit ?? ParamsLimits.defaultHistoryLimit
        guard ParamsLimits.historyLimits.contains(limit) else {
            throw .invalidParams("limit must be 1 to 1000")
        }
        guard before == nil || after == nil else {
            throw .invalidParams("give at most one of \"before\" and \"after\"")
        }
        return limit
    }
}

extension ParamsLimits {
    /// `search` `limit`: 1 … 1000, default 50.
    public static let searchLimits = 1...1000
    public static let defaultSearchLimit = 50
    /// A search text or an inbox filter, in UTF-8 bytes.
    public static let maxQueryBytes = 1_024
}

extension SearchParams {
    /// The number of hits: `limit` within 1 … 1000, else 50. The text's own syntax is checked
    /// by the daemon's query parser (`SearchQuery`), which says what is wrong with it.
    public func validatedLimit() throws(ControlError) -> Int {
        guard !text.allSatisfy(\.isWhitespace) else { throw .badInput("nothing to search for") }
        guard text.utf8.count <= ParamsLimits.maxQueryBytes else {
            throw .badInput(
                "cannot search for that: the query is over \(ParamsLimits.maxQueryBytes) bytes")
        }
        let limit = self.limit ?? ParamsLimits.defaultSearchLimit
        guard ParamsLimits.searchLimits.contains(limit) else {
            throw .invalidParams("limit must be 1 to 1000")
        }
        return limit
    }
}

extension InboxParams {
    /// The filter, if any: at most 1 KiB.
    public func validate() throws(ControlError) {
        guard let query, query.utf8.count > ParamsLimits.maxQueryBytes else { return }
        throw .badInput("an inbox filter of over \(ParamsLimits.maxQueryBytes) bytes")
    }
}
