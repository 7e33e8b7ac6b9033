import LanChatControl

/// Figure 5: wall time of `lanchat send` and `lanchat who`, the release binaries, against a
/// running release `lanchatd` (alice) that has one peer (bob, another `lanchatd`) online.
/// Each run is a whole process: start, connect, one request, print, exit.
struct CLIWallTimeBench {
    let scale: BenchScale
    let directory: String
    let binDirectory: String

    func run() async throws -> [Figure] {
        try makePrivateDirectory(directory)
        let daemonBinary = binDirectory + "/lanchatd"
        let alice = try await DaemonProcess.start(
            binary: daemonBinary, name: "alice", in: directory)
        var bob: DaemonProcess?
        do {
            let started = try await DaemonProcess.start(
                binary: daemonBinary, name: "bob", in: directory, peerPorts: [alice.port])
            bob = started
            let figures = try await measure(alice: alice, bob: started)
            await started.stop()
            await alice.stop()
            return figures
        } catch {
            await bob?.stop()
            await alice.stop()
            throw error
        }
    }

    private func measure(alice: DaemonProcess, bob: DaemonProcess) async throws -> [Figure] {
        try await waitUntil("alice (lanchatd) sees bob online", timeout: .seconds(20)) {
            let peers = try await alice.client.who().peers
            return peers.contains { $0.id == bob.id && $0.name == bob.name }
        }
        let timer = CommandTimer(
            warmup: scale.cliWarmup, runs: scale.cliRuns, scratchDirectory: directory)
        let lanchat = binDirectory + "/lanchat"
        let send = try await timer.time([
            lanchat, "--socket", alice.socketPath, "send", "bob", "benchmark-ping",
        ])
        let who = try await timer.time([lanchat, "--socket", alice.socketPath, "who"])
        let startOnly = try await timer.time([lanchat, "--version"])
        let rss = ProcessSample.read(pid: alice.pid)?.residentKilobytes
        let note =
            "\(timer.toolName), \(scale.cliRuns.grouped) runs after \(scale.cliWarmup) warm-up; median (mean, p90 in JSON)"
        var figures = [
            Figure(
                key: "cli_send_ms", group: 5, title: "`lanchat send bob TEXT` wall time",
                value: send.median, unit: "ms", target: .atMost(15), note: note,
                details: send.summary),
            Figure(
                key: "cli_who_ms", group: 5, title: "`lanchat who` wall time", value: who.median,
                unit: "ms", target: .atMost(15), note: note, details: who.summary),
        ]
        figures.append(
            Figure(
                key: "cli_version_ms", group: 5,
                title: "↳ `lanchat --version` (no daemon): the process's own start and exit",
                value: startOnly.median, unit: "ms", target: nil, note: note,
                details: startOnly.summary))
        if let rss {
            figures.append(
                Figure(
                    key: "daemon_rss_one_peer_mb", group: 5,
                    title: "↳ lanchatd RSS with 1 peer, after those runs",
                    value: Double(rss) / 1_024, unit: "MB", target: nil,
                    note: "VmRSS of the release daemon the CLI talked to"))
        }
        return figures
    }
}
