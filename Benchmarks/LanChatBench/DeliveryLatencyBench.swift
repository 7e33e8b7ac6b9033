import LanChatClient
import LanChatControl

/// Figure 1: send → delivered, one message at a time, between two daemons.
///
/// Each send is `send` with `wait: true` through the control API (what `lanchat send
/// --wait` does), timed from the call to its answer in the client: the store commit on
/// alice, the MSG, bob's commit, bob's ACK, alice recording `delivered`, and the answer.
/// The daemon's own view (`deliveredAt − createdAt`, millisecond stamps) is reported
/// beside it, and so is a plain `send` without waiting (the latency a user sees at the
/// prompt: one commit and the API), and a call that touches no store (the API's floor).
struct DeliveryLatencyBench {
    let scale: BenchScale
    let directory: String
    /// The run's 100-byte `fdatasync` (ms), which the p50 is also given relative to: the
    /// machine's disk and load move both, so the ratio is what issues 10 and 15 judge.
    let fdatasync: Double?
    /// Where the same sends run again with both stores on a tmpfs (`BenchOptions`), or nil.
    let memoryDirectory: String?

    func run() async throws -> [Figure] {
        var figures = try await InProcessPair.run(in: directory) { try await measure($0) }
        figures.append(
            try await StoreCommitProbe(directory: directory + "/probe", count: scale.latencySends)
                .run())
        if let memoryDirectory {
            let inMemory = try await InProcessPair.run(in: memoryDirectory) {
                try await waitedSends($0)
            }
            figures += memoryFigures(inMemory)
        }
        return figures
    }

    /// Figure 1 again with nothing to wait for on a disk: what a `send --wait` costs the
    /// daemons' CPU and hand-offs alone. Set against 4 × the disk's `fdatasync`, it says
    /// whether any way of storing could bring the p50 under that (docs/benchmarks.md, round 19).
    private func memoryFigures(_ roundTrips: Samples) -> [Figure] {
        let note =
            "the same \(roundTrips.count.grouped) sends after the same warm-up, both stores on tmpfs"
        return [
            Figure(
                key: "send_delivered_memory_p50_ms", group: 1,
                title: "↳ send → delivered with both stores in memory (tmpfs): p50 (p99 in JSON)",
                value: roundTrips.median, unit: "ms", target: nil, note: note,
                details: roundTrips.summary),
            Figure(
                key: "send_delivered_memory_p50_to_fdatasync", group: 1,
                title: "↳ that p50 relative to the run's `fdatasync` on disk",
                value: fdatasync.map { roundTrips.median / $0 }, unit: "×", target: nil,
                note: "no disk wait at all: the floor of the ratio above for this CPU"),
        ]
    }

    /// The warm-up, then the timed waited sends: their round trips and the daemon's own view.
    private func waitedSends(_ pair: InProcessPair) async throws -> Samples {
        try await waitedSendsWithDaemonView(pair).roundTrips
    }

    private func waitedSendsWithDaemonView(_ pair: InProcessPair) async throws
        -> (roundTrips: Samples, daemonView: Samples)
    {
        let client = pair.alice.client
        let peer = pair.bob.id
        for index in 0..<scale.latencyWarmup {
            _ = try await sendAndWait(client, to: peer, text: Payload.text(index))
        }
        var roundTrips = Samples()
        var daemonView = Samples()
        for index in 0..<scale.latencySends {
            let start = ContinuousClock.now
            let message = try await sendAndWait(
                client, to: peer, text: Payload.text(scale.latencyWarmup + index))
            roundTrips.append(start.duration(to: .now).milliseconds)
            if let delivered = message.deliveredAt {
                daemonView.append(
                    Double(
                        delivered.millisecondsSince1970 - message.createdAt.millisecondsSince1970))
            }
        }
        return (roundTrips, daemonView)
    }

    private func measure(_ pair: InProcessPair) async throws -> [Figure] {
        let client = pair.alice.client
        let peer = pair.bob.id
        let (roundTrips, daemonView) = try await waitedSendsWithDaemonView(pair)
        var stored = Samples()
        for index in 0..<scale.latencySends {
            let start = ContinuousClock.now
            _ = try await client.send(SendParams(peer: peer, text: Payload.text(index)))
            stored.append(start.duration(to: .now).milliseconds)
        }
        var apiFloor = Samples()
        for _ in 0..<scale.latencySends {
            let start = ContinuousClock.now
            _ = try await client.who()
            apiFloor.append(start.duration(to: .now).milliseconds)
        }
        let note =
            "\(roundTrips.count.grouped) sends, `send` + `wait: true` via the API, after \(scale.latencyWarmup) warm-up"
        return [
            Figure(
                key: "send_delivered_p50_ms", group: 1,
                title: "send → delivered, one at a time, two daemons: p50",
                value: roundTrips.median,
                unit: "ms", target: .atMost(1), note: note, details: roundTrips.summary),
            Figure(
                key: "send_delivered_p99_ms", group: 1,
                title: "send → delivered, one at a time, two daemons: p99",
                value: roundTrips.percentile(99), unit: "ms", target: .atMost(5), note: note,
                details: roundTrips.summary),
            Figure(
                key: "send_delivered_p50_to_fdatasync", group: 1,
                title: "send → delivered p50 relative to the run's `fdatasync`",
                value: fdatasync.map { roundTrips.median / $0 },
                unit: "×", target: .atMost(4),
                note: "p50 / the context line's median; issue 15 asks ≤ 4 ×, issue 10 ≤ 11 ×"),
            Figure(
                key: "send_delivered_daemon_mean_ms", group: 1,
                title: "↳ daemon's own stamps, createdAt → deliveredAt: mean",
                value: daemonView.mean, unit: "ms", target: nil,
                note:
                    "whole-millisecond stamps of the same sends, so the mean, not p50, is telling",
                details: daemonView.summary),
            Figure(
                key: "send_stored_p50_ms", group: 1,
                title: "↳ `send` without wait (stored, answer back): p50 (p99 in JSON)",
                value: stored.median, unit: "ms", target: nil,
                note: "\(stored.count.grouped) sends through the API", details: stored.summary),
            Figure(
                key: "api_who_p50_ms", group: 1,
                title: "↳ API round trip that touches no store (`who`): p50 (p99 in JSON)",
                value: apiFloor.median, unit: "ms", target: nil,
                note: "\(apiFloor.count.grouped) calls on the same connection",
                details: apiFloor.summary),
        ]
    }

    private func sendAndWait(_ client: ControlClient, to peer: String, text: String)
        async throws -> MessageInfo
    {
        let result = try await client.send(
            SendParams(peer: peer, text: text, wait: true, timeout: 10))
        guard let message = result.messages?.first,
            message.status == .delivered || message.status == .read
        else {
            throw BenchError.failed("send --wait answered without the message delivered")
        }
        return message
    }
}
