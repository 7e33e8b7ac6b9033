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

    func run() async throws -> [Figure] {
        let dataDirectory = directory + "/dave"
        let fill = try await HistoryFill(dataDirectory: dataDirectory, count: scale.historyMessages)
            .run()
        let node = try await InProcessNode.start("dave", in: directory)
        do {
            let figures = try await measure(node, fill: fill)
            await node.stop()
            return figures
        } catch {
            await node.stop()
            throw error
        }
    }

    private func measure(_ node: InProcessNode, fill: HistoryFill.Outcome) async throws
        -> [Figure]
    {
        let peer = fill.peer.id
        let first = try await node.client.history(HistoryParams(peer: peer, limit: 50))
        guard first.messages.count == 50, first.hasOlder else {
            throw BenchError.failed("the newest page has \(first.messages.count) messages")
        }
        var newest = Samples()
        for _ in 0..<scale.historyCalls {
            let start = ContinuousClock.now
            let page = try await node.client.history(HistoryParams(peer: peer, limit: 50))
            newest.append(start.duration(to: .now).milliseconds)
            guard page.messages.count == 50 else { throw BenchError.failed("short page") }
        }
        var deep = Samples()
        guard !fill.anchors.isEmpty else { throw BenchError.failed("no anchors for deep pages") }
        for call in 0..<scale.historyCalls {
            let anchor = fill.anchors[call % fill.anchors.count].description
            let start = ContinuousClock.now
            let page = try await node.client.history(
                HistoryParams(peer: peer, limit: 50, before: anchor))
            deep.append(start.duration(to: .now).milliseconds)
            guard page.messages.count == 50 else { throw BenchError.failed("short deep page") }
        }
        let size = "\(scale.historyMessages) messages"
        return [
            Figure(
                key: "history_page_newest_ms", group: 6,
                title: "history page of 50, newest, in a \(size) conversation",
                value: newest.median, unit: "ms", target: .atMost(2),
                note: "\(newest.count) `history` calls via the API; median (p99 in JSON)",
                details: newest.summary),
            Figure(
                key: "history_page_deep_ms", group: 6,
                title: "history page of 50, `before` an id deep in the same conversation",
                value: deep.median, unit: "ms", target: .atMost(2),
                note:
                    "\(deep.count) calls over \(fill.anchors.count) anchors; median (p99 in JSON)",
                details: deep.summary),
            Figure(
                key: "history_fill_msg_per_s", group: 6,
                title: "↳ filling the store for it (`commitIncoming`, 10 000 per transaction)",
                value: Double(scale.historyMessages) / fill.seconds, unit: "msg/s", target: nil,
                note: "setup of this figure, through LanChatStore's API"),
        ]
    }
}
