import LanChatControl
import LanChatCore
import LanChatStore

extension MessageInfo {
    /// What the message counts against a page's `PageBudget`.
    var pageCost: Int {
        PageBudget.cost(textBytes: text.utf8.count, recipients: recipients?.count ?? 0)
    }
}

extension HistoryResult {
    /// Cuts the page to `PageBudget.maxBytes`: the newest messages are kept for a page that
    /// reads backwards (the latest, or `before` an id), the oldest for one `after` an id, and
    /// the side cut away says there is more, so the next page picks it up.
    mutating func fitToBudget(
        anchor: MessageStore.PageAnchor, budget: Int = PageBudget.maxBytes
    ) {
        let readsForwards: Bool
        if case .after = anchor { readsForwards = true } else { readsForwards = false }
        if readsForwards {
            let kept = PageBudget.fitting(messages.lazy.map(\.pageCost), budget: budget)
            guard kept < messages.count else { return }
            messages.removeLast(messages.count - kept)
            hasNewer = true
        } else {
            let kept = PageBudget.fitting(messages.reversed().lazy.map(\.pageCost), budget: budget)
            guard kept < messages.count else { return }
            messages.removeFirst(messages.count - kept)
            hasOlder = true
        }
    }
}

extension SearchResult {
    /// The newest of `messages` (newest first) that fit `PageBudget.maxBytes`, `more` when
    /// some did not.
    static func fitted(_ messages: [MessageInfo], budget: Int = PageBudget.maxBytes) -> Self {
        let kept = PageBudget.fitting(messages.lazy.map(\.pageCost), budget: budget)
        return SearchResult(messages: Array(messages.prefix(kept)), more: kept < messages.count)
    }
}
