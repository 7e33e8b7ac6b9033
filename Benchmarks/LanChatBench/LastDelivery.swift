import LanChatClient
import LanChatControl

/// Waits until the newest message alice wrote to `peer` is `text` and delivered, checks
/// that alice's outbox is then empty, and returns the message's `deliveredAt` stamp.
///
/// Why not `status().queued == 0`: `status` counts the outbox, a scan of every queued
/// message. Polled every 10 ms while 10 000 are queued, those counts took about 5 % of the
/// two cores from the daemons being measured, and figure 4 read about 10 % slower with it
/// than with a poll twenty times rarer. A one-message history page costs the same whatever
/// the outbox holds. Streams are delivered in order and ACKs are cumulative, so the last
/// message delivered means every one before it is too; each figure still checks the
/// receiver's count after.
func waitForLastDelivery(
    _ client: ControlClient, to peer: String, text: String, timeout: Duration
) async throws -> Timestamp {
    var delivered: Timestamp?
    try await waitUntil("the last message to \(peer) delivered", timeout: timeout) {
        let page = try await client.history(HistoryParams(peer: peer, limit: 1))
        guard let last = page.messages.last, last.text == text else {
            throw BenchError.failed("the newest message to \(peer) is not the last one sent")
        }
        delivered = last.deliveredAt
        return delivered != nil
    }
    guard let delivered else { throw BenchError.failed("the last message has no delivery stamp") }
    let queued = try await client.status().queued
    guard queued == 0 else {
        throw BenchError.failed("\(queued) still queued after the last message was delivered")
    }
    return delivered
}
