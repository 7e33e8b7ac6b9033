import LanChatClient
import LanChatControl

/// Figure 7: an idle release `lanchatd` with `idlePeers` peers connected.
///
/// The peers are in-process daemons (the `LanChatDaemon` library) in this benchmark's
/// process, each on its own port on 127.0.0.1; the measured daemon is a separate process
/// that dials every one of them (`--peer` ×N), so its own memory and CPU time are its alone.
/// Once all are online it is left alone for a few seconds, then its CPU time (utime + stime
/// from /proc) is taken over `idleSeconds`, and its VmRSS at the end. Nobody talks to it in
/// that window: the sessions' keepalives are all the traffic.
struct IdleDaemonBench {
    let scale: BenchScale
    let directory: String
    let binDirectory: String

    static let settleTime: Duration = .seconds(3)

    func run() async throws -> [Figure] {
        try makePrivateDirectory(directory)
        var peers: [InProcessNode] = []
        var daemon: DaemonProcess?
        do {
            for index in 0..<scale.idlePeers {
                peers.append(try await InProcessNode.start("peer\(index)", in: directory))
            }
            let started = try await DaemonProcess.start(
                binary: binDirectory + "/lanchatd", name: "idle", in: directory,
                peerPorts: peers.map(\.port))
            daemon = started
            let figures = try await measure(started, peerCount: peers.count)
            await started.stop()
            for peer in peers { await peer.stop() }
            return figures
        } catch {
            await daemon?.stop()
            for peer in peers { await peer.stop() }
            throw error
        }
    }

    private func measure(_ daemon: DaemonProcess, peerCount: Int) async throws -> [Figure] {
        let connectStart = ContinuousClock.now
        try await waitUntil(
            "lanchatd sees all \(peerCount) peers online", timeout: .seconds(120),
            interval: .milliseconds(100)
        ) {
            try await daemon.client.who().peers.count == peerCount
        }
        let connected = connectStart.duration(to: .now)
        daemon.client.close()
        try await Task.sleep(for: Self.settleTime)
        guard let before = ProcessSample.read(pid: daemon.pid) else {
            throw BenchError.failed("cannot read /proc for lanchatd")
        }
        let start = ContinuousClock.now
        try await Task.sleep(for: .seconds(scale.idleSeconds))
        guard let after = ProcessSample.read(pid: daemon.pid) else {
            throw BenchError.failed("cannot read /proc for lanchatd")
        }
        let window = start.duration(to: .now).seconds
        let cpuPercent = (after.cpuSeconds - before.cpuSeconds) / window * 100
        let online = try await daemon.client.who().peers.count
        guard online == peerCount else {
            throw BenchError.failed("only \(online) of \(peerCount) peers stayed online")
        }
        let setup = "\(peerCount) peers (in-process daemons) dialled by a release lanchatd"
        return [
            Figure(
                key: "idle_rss_mb", group: 7, title: "idle daemon with \(peerCount) peers: RSS",
                value: Double(after.residentKilobytes) / 1_024, unit: "MB", target: .atMost(30),
                note: "\(setup); VmRSS after the idle window (RssAnon, RssFile, VmHWM in JSON)",
                details: [
                    "peak_rss_mb": Double(after.peakResidentKilobytes) / 1_024,
                    "threads": Double(after.threads), "peers": Double(peerCount),
                    "rss_anon_mb": Double(after.anonymousKilobytes) / 1_024,
                    "rss_file_mb": Double(after.fileKilobytes) / 1_024,
                ]),
            Figure(
                key: "idle_rss_anon_mb", group: 7,
                title: "↳ of which private memory (RssAnon; the rest is mapped libraries)",
                value: Double(after.anonymousKilobytes) / 1_024, unit: "MB", target: nil,
                note: "RssFile: \(Figure.format(Double(after.fileKilobytes) / 1_024)) MB"),
            Figure(
                key: "idle_cpu_percent", group: 7,
                title: "idle daemon with \(peerCount) peers: CPU", value: cpuPercent,
                unit: "% of a core", target: .atMost(1),
                note:
                    "utime + stime over \(Int(window.rounded())) s, \(Int(Self.settleTime.seconds)) s after all were online",
                details: ["window_s": window, "cpu_s": after.cpuSeconds - before.cpuSeconds]),
            Figure(
                key: "idle_connect_s", group: 7,
                title: "↳ time for all \(peerCount) sessions to come up (HELLO done)",
                value: connected.seconds, unit: "s", target: nil,
                note: "from its socket answering to `who` listing every peer online"),
        ]
    }
}
