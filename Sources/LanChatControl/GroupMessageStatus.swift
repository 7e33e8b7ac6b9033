/// How an own group message's status follows its copies' (lanchat-api(7), "A message of a
/// group conversation"): the least advanced copy's status, and delivered (read) when the last
/// member had it (read it). One rule for the daemon, which builds the message from its
/// copies, and for `lanchat chat`, which applies one copy's `message.status` event to the
/// message it shows.
extension MessageStatus {
    /// Of two statuses, the one less advanced (failed counts least: it needs the user).
    public static func leastAdvanced(_ a: MessageStatus, _ b: MessageStatus) -> MessageStatus {
        let order: [MessageStatus] = [.failed, .queued, .sent, .delivered, .read]
        let rank = { (status: MessageStatus) in order.firstIndex(of: status) ?? 0 }
        return rank(a) <= rank(b) ? a : b
    }
}

extension Timestamp {
    /// The latest of `times` when every one is set, else nil.
    public static func whenAll(_ times: [Timestamp?]) -> Timestamp? {
        let set = times.compactMap { $0 }
        guard set.count == times.count else { return nil }
        return set.max { $0.millisecondsSince1970 < $1.millisecondsSince1970 }
    }
}

extension MessageInfo {
    /// The status, `deliveredAt` and `readAt` of an own group message, worked out again from
    /// its `recipients`.
    public mutating func settleFromRecipients() {
        guard let recipients, let first = recipients.first else { return }
        status = recipients.dropFirst().reduce(first.status) {
            MessageStatus.leastAdvanced($0, $1.status)
        }
        deliveredAt = Timestamp.whenAll(recipients.map(\.deliveredAt))
        readAt = Timestamp.whenAll(recipients.map(\.readAt))
    }

    /// One copy's new state (a `message.status` event of an own group message carries the
    /// copy as its one recipient; from a daemon before that, as the message with `peer` the
    /// member): that member's recipient entry takes it, and the message its status again.
    /// False when this message has no such member.
    public mutating func applyCopy(_ copy: MessageInfo) -> Bool {
        let member =
            copy.recipients?.first
            ?? RecipientInfo(
                peer: copy.peer, status: copy.status ?? .queued, deliveredAt: copy.deliveredAt,
                readAt: copy.readAt, failReason: copy.status == .failed ? copy.failReason : nil)
        guard let index = recipients?.firstIndex(where: { $0.peer == member.peer }) else {
            return false
        }
        recipients?[index] = member
        if copy.status == .failed, failReason == nil { failReason = copy.failReason }
        settleFromRecipients()
        return true
    }
}
