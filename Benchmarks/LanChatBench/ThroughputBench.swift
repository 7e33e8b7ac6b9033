/// Figures 2 and 3: sustained daemon-to-daemon throughput, the bare encrypted pipe, and
/// their ratio, measured in the same run.
///
/// The runs alternate (pipe, daemons, pipe, daemons…) so that a change in the machine's
/// load (it is shared) weighs on both sides alike; each figure is the median of its runs,
/// and every run is in the JSON.
struct ThroughputBench {
    let scale: BenchScale
    let directory: String
    /// Where each round also runs the daemons with both stores on a tmpfs, or nil.
    let memoryDirectory: String?

    func run() async throws -> [Figure] {
        let texts = Payload.texts(from: 0, count: scale.throughputMessages)
        var daemons = Samples()
        var pipes = Samples()
        var stored = Samples()
        var inMemory = Samples()
        for round in 1...scale.throughputRuns {
            pipes.append(try await PipeBaselineRun(texts: texts).run())
            let outcome = try await daemonRun(texts, in: directory + "/run\(round)")
            daemons.append(outcome.messagesPerSecond)
            stored.append(Double(texts.count) / outcome.storedSeconds)
            if let memoryDirectory {
                inMemory.append(
                    try await daemonRun(texts, in: memoryDirectory + "/run\(round)")
                        .messagesPerSecond)
            }
        }
        var runs: [String: Double] = [:]
        for (index, value) in daemons.values.enumerated() { runs["daemon_run\(index + 1)"] = value }
        for (index, value) in pipes.values.enumerated() { runs["pipe_run\(index + 1)"] = value }
        let size = "\(scale.throughputMessages.grouped) × 100 B"
        let ofRuns = "median of \(scale.throughputRuns) runs"
        return [
            Figure(
                key: "throughput_msg_per_s", group: 2,
                title: "sustained throughput, 100-byte messages, durable on both sides",
                value: daemons.median, unit: "msg/s", target: .atLeast(50_000),
                note:
                    "\(size), `send` with `texts` batches of 1 000 (`idsOnly`, as `--lines`) until the last is delivered; \(ofRuns)",
                details: runs),
            Figure(
                key: "throughput_stored_msg_per_s", group: 2,
                title: "↳ of which: storing on the sender (`send` calls return)",
                value: stored.median, unit: "msg/s", target: nil,
                note: "the same runs: messages / time until the last `send` answered",
                details: stored.summary),
            Figure(
                key: "pipe_msg_per_s", group: 3,
                title: "bare encrypted pipe (same framing and acks, no store, no API)",
                value: pipes.median, unit: "msg/s", target: nil,
                note: "\(size), two `Transport` endpoints, window 1 024, ACK per ≤ 256; \(ofRuns)",
                details: pipes.summary),
            Figure(
                key: "throughput_to_pipe_ratio", group: 3,
                title: "throughput relative to the bare pipe, same run",
                value: daemons.median / pipes.median, unit: "", target: .atLeast(0.1),
                note: "median daemon rate / median pipe rate"),
        ] + memoryFigures(inMemory, pipes: pipes, ofRuns: ofRuns)
    }

    private func daemonRun(_ texts: [String], in runDirectory: String) async throws
        -> DaemonThroughputRun.Outcome
    {
        defer { removeDirectory(runDirectory) }
        return try await DaemonThroughputRun(texts: texts, directory: runDirectory).run()
    }

    /// Figure 2 again with nothing to wait for on a disk: how near the CPU alone lets the
    /// daemons come to the pipe (docs/benchmarks.md, round 19).
    private func memoryFigures(_ inMemory: Samples, pipes: Samples, ofRuns: String) -> [Figure] {
        guard !inMemory.values.isEmpty else { return [] }
        return [
            Figure(
                key: "throughput_memory_to_pipe_ratio", group: 3,
                title: "↳ throughput with both stores in memory (tmpfs), relative to the pipe",
                value: inMemory.median / pipes.median, unit: "", target: nil,
                note: "a run on tmpfs after each of (2)'s; \(ofRuns): "
                    + "\(Figure.format(inMemory.median)) msg/s",
                details: inMemory.summary)
        ]
    }
}
