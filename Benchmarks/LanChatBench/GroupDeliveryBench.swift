import LanChatClient
import LanChatControl

/// Figure 9 (issue 13): a message to a group of 10 online members, delivered to all.
///
/// Eleven in-process daemons: alice and ten members, each member dialling alice (a group
/// message travels from its sender to each member over that member's own session, so the
/// members need no sessions with each other). Each send is `send #bench` with `wait: true`
/// through the control API, timed from the call to its answer: alice stores ten copies in one
/// transaction, writes one MSG on each session, every member commits its copy and ACKs, and
/// the answer comes once all ten are acknowledged.
struct GroupDeliveryBench {
    let scale: BenchScale
    let directory: String

    static let members = 10

    func run() async throws -> [Figure] {
        try makePrivateDirectory(directory)
        let alice = try await InProcessNode.start("alice", in: directory)
        var nodes = [alice]
        do {
            for index in 1...Self.members {
                nodes.append(
                    try await InProcessNode.start(
                        "member\(index)", peerPorts: [alice.port], in: directory))
            }
            let members = Array(nodes.dropFirst())
            try await waitUntil("alice sees every member online", timeout: .seconds(30)) {
                for member in members where !(await alice.sees(member.id, named: member.name)) {
                    return false
                }
                return true
            }
            let figures = try await measure(alice, members: members)
            for node in nodes.reversed() { await node.stop() }
            return figures
        } catch {
            for node in nodes.reversed() { await node.stop() }
            throw error
        }
    }

    private func measure(_ alice: InProcessNode, members: [InProcessNode]) async throws
        -> [Figure]
    {
        let client = alice.client
        _ = try await client.groupCreate(
            GroupCreateParams(name: "bench", peers: members.map(\.id)))
        let warmup = max(5, scale.latencyWarmup / 5)
        let sends = max(50, scale.latencySends / 5)
        for index in 0..<warmup {
            try await sendAndWait(client, text: Payload.text(index))
        }
        var roundTrips = Samples()
        for index in 0..<sends {
            let start = ContinuousClock.now
            try await sendAndWait(client, text: Payload.text(warmup + index))
            roundTrips.append(start.duration(to: .now).milliseconds)
        }
        let note =
            "\(roundTrips.count.grouped) sends to a group of \(Self.members) online members, `send` + `wait: true` via the API, after \(warmup) warm-up; 11 daemons in one process"
        return [
            Figure(
                key: "group10_delivered_p50_ms", group: 9,
                title: "message to a group of 10 online members, delivered to all: p50",
                value: roundTrips.median, unit: "ms", target: .atMost(5), note: note,
                details: roundTrips.summary),
            Figure(
                key: "group10_delivered_p99_ms", group: 9,
                title: "↳ the same: p99",
                value: roundTrips.percentile(99), unit: "ms", target: nil, note: note,
                details: roundTrips.summary),
        ]
    }

    private func sendAndWait(_ client: ControlClient, text: String) async throws {
        let result = try await client.send(
            SendParams(peer: "#bench", text: text, wait: true, timeout: 10))
        guard let message = result.messages?.first,
            message.recipients?.count == Self.members,
            message.status == .delivered || message.status == .read
        else {
            throw BenchError.failed("send #bench --wait answered without every member's copy")
        }
    }
}
