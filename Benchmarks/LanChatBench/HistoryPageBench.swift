import LanChatClient
import LanChatControl
import LanChatCore

/// Figure 6: one `history` page of 50 in a conversation of `historyMessages` messages,
/// through the control API of a running daemon (what `lanchat history PEER` asks for).
///
/// Two kinds of page are timed: the newest page (the default), and pages deep in the
/// conversation (`before` an id spread over the whole of it, as `/more` and `--before` ask).
struct HistoryPageBench {
    let scale: BenchScale
    let directory: String

    /// The small conversation beside the big one: the same page there shows what a page
    /// costs whatever the conversation's size.
    static let smallConversation = 1_000

    func run() async throws -> [Figure] {
        let dataDirectory = directory + "/dave"
        let big = try await HistoryFill(
            dataDirectory: dataDirectory, count: scale.historyMessages, peerName: "carol"
        ).run()
        let small = try await HistoryFill(
            dataDirectory: dataDirectory, count: Self.smallConversation, peerName: "erin"
        ).run()
        let node = try await InProcessNode.start("dave", in: directory)
        do {
            let figures = try await measure(node, big: big, small: small)
            await node.stop()
            return figures
        } catch {
            await node.stop()
            throw error
        }
    }

    private func measure(
        _ node: InProcessNode, big: HistoryFill.Outcome, small: HistoryFill.Outcome
    ) async throws -> [Figure] {
        let newest = try await timePages(node, peer: big.peer, anchors: [])
        let deep = try await timePages(node, peer: big.peer, anchors: big.anchors)
        let smallNewest = try await timePages(node, peer: small.peer, anchors: [])
        let size = "\(scale.historyMessages.grouped)-message"
        return [
            Figure(
                key: "history_page_newest_ms", group: 6,
                title: "history page of 50, newest, in a \(size) conversation",
                value: newest.median, unit: "ms", target: .atMost(2),
                note: "\(newest.count.grouped) `history` calls via the API; median (p99 in JSON)",
                details: newest.summary),
            Figure(
                key: "history_page_deep_ms", group: 6,
                title: "history page of 50, `before` an id deep in the same conversation",
                value: deep.median, unit: "ms", target: .atMost(2),
                note:
                    "\(deep.count.grouped) calls over \(big.anchors.count) anchors; median (p99 in JSON)",
                details: deep.summary),
            Figure(
                key: "history_page_small_ms", group: 6,
                title:
                    "↳ the same newest page in a \(Self.smallConversation.grouped)-message conversation",
                value: smallNewest.median, unit: "ms", target: nil,
                note: "same daemon and store; the page's fixed cost", details: smallNewest.summary),
            Figure(
                key: "history_fill_msg_per_s", group: 6,
                title: "↳ filling the store for it (`commitIncoming`, 10 000 per transaction)",
                value: Double(scale.historyMessages) / big.seconds, unit: "msg/s", target: nil,
                note: "setup of this figure, through LanChatStore's API"),
        ]
    }

    /// Times `historyCalls` pages of 50 with `peer`: the newest page when `anchors` is
    /// empty, else pages `before` each anchor in turn.
    private func timePages(_ node: InProcessNode, peer: PeerKey, anchors: [MessageID])
        async throws -> Samples
    {
        var samples = Samples()
        for call in 0..<scale.historyCalls {
            let before = anchors.isEmpty ? nil : anchors[call % anchors.count].description
            let start = ContinuousClock.now
            let page = try await node.client.history(
                HistoryParams(peer: peer.id, limit: 50, before: before))
            samples.append(start.duration(to: .now).milliseconds)
            guard page.messages.count == 50, page.hasOlder else {
                throw BenchError.failed("a history page had \(page.messages.count) messages")
            }
        }
        return samples
    }
}
