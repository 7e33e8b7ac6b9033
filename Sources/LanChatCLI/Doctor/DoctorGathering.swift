import LanChatClient
import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// The impure half of `lanchat doctor`: asks the daemon and the system, each bounded, and
/// returns plain facts for the checks. The tools run at the same time, so the whole doctor
/// takes about as long as its slowest tool (2 s at most each).
enum DoctorGathering {
    /// Per daemon call: the doctor must say "not answering" quickly, not wait 10 s.
    static let daemonTimeout: Duration = .seconds(2)

    /// `defaultSocketPath`: the user service's socket, for fixes that restart it.
    /// `defaultDataDirectory`: where to look for a lanchatd that runs without its socket.
    static func gather(
        client: ControlClient, uid: UInt32, defaultSocketPath: String,
        defaultDataDirectory: String?
    ) async -> DoctorFacts {
        async let avahiBus = ToolRunner.run(
            "busctl",
            [
                "--system", "call", "org.freedesktop.Avahi", "/",
                "org.freedesktop.Avahi.Server", "GetVersionString",
            ])
        async let addresses = ToolRunner.run("ip", ["-j", "addr"])
        async let ruleset = ToolRunner.run("nft", ["-j", "list", "ruleset"])
        async let resolvectl = ToolRunner.run("resolvectl", ["mdns"])
        async let browse = ToolRunner.run(
            "avahi-browse", ["-t", "-r", "-p", "-k", "_lanchat._tcp"])

        let socket = socketFacts(client.socketPath)
        let status: Result<StatusResult, ControlError>
        do {
            status = .success(
                try await client.call(Methods.Status.self, NoParams(), timeout: daemonTimeout))
        } catch {
            status = .failure(error)
        }

        var peers: Result<[PeerInfo], ControlError>?
        var probes: [PortProbe] = []
        if case .success(let daemon) = status {
            do {
                peers = .success(
                    try await client.call(
                        Methods.Who.self, WhoParams(all: true), timeout: daemonTimeout
                    ).peers)
            } catch {
                peers = .failure(error)
            }
            for target in ListeningAddress.targets(daemon.listening) {
                probes.append(await PortProber.probe(target))
            }
        }
        client.close()

        // From the root, so that every message and fix names it wherever it is read or run
        // (found by QA: "its socket e.sock is gone").
        var facts = DoctorFacts(
            uid: uid, socketPath: absolutePath(client.socketPath), socket: socket,
            socketTarget: symbolicLinkTarget(client.socketPath),
            defaultSocketPath: defaultSocketPath, status: status, peers: peers,
            avahiBus: await avahiBus, addresses: await addresses,
            portProbes: probes, ruleset: await ruleset, resolvectl: await resolvectl)
        // Browsed in any case (it runs alongside the rest), used only when there is a
        // daemon whose id to look for and mDNS is on.
        let browsed = await browse
        facts.socketDirectory = absoluteDirectory(of: facts.socketTarget ?? client.socketPath)
        facts.systemBus = SystemBusProbe.probe()
        if let daemon = facts.daemon { facts.dataDirectory = dataDirectoryFacts(daemon.dataDir) }
        if facts.daemon == nil, let defaultDataDirectory {
            let asked = client.socketPath
            facts.dataDirectoryLock = DataDirectoryLockProbe.probe(
                directory: defaultDataDirectory,
                socketPaths: [asked, absolutePath(asked)] + [facts.socketTarget].compactMap(\.self))
        }
        if let daemon = facts.daemon, daemon.avahi != "disabled" { facts.browse = browsed }
        if case .missing = facts.avahiBus {
            facts.avahiCheck = await ToolRunner.run("avahi-daemon", ["--check"])
        }
        if case .missing = facts.resolvectl {
            facts.resolvedConfMulticastDNS = ResolvedCheck.multicastDNS(in: resolvedConfFiles())
        }
        return facts
    }

    static func dataDirectoryFacts(_ path: String) -> DataDirectoryFacts {
        var info = statvfs()
        let free =
            statvfs(path, &info) == 0 ? UInt64(info.f_bavail) * UInt64(info.f_frsize) : nil
        return DataDirectoryFacts(
            path: path, writable: access(path, W_OK) == 0, freeBytes: free)
    }

    /// `stat`, not `lstat`: a symbolic link to the socket is what connect(2) reaches (QA: a
    /// link to the live socket was "not a socket" while the daemon answered through it).
    /// The directory is the socket's own, where the link leads.
    static func socketFacts(_ path: String) -> SocketFacts {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        if info.st_mode & S_IFMT == S_IFDIR { return .directory }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        let socket = symbolicLinkTarget(path) ?? path
        var directory = stat()
        guard stat(parentDirectory(of: socket), &directory) == 0 else { return .missing }
        return .present(
            mode: UInt32(info.st_mode & 0o7777), owner: UInt32(info.st_uid),
            directoryMode: UInt32(directory.st_mode & 0o7777),
            directoryOwner: UInt32(directory.st_uid))
    }

    /// The absolute path `path` leads to when it is a symbolic link (every link on the way
    /// followed); nil when it is not one, or leads nowhere.
    static func symbolicLinkTarget(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
            let resolved = realpath(path, nil)
        else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// resolved.conf and its drop-ins in the order resolved reads them.
    static func resolvedConfFiles() -> [String] {
        var files: [String] = []
        if let main = readSmallFile("/etc/systemd/resolved.conf") { files.append(main) }
        let dropIns = "/etc/systemd/resolved.conf.d"
        if let directory = opendir(dropIns) {
            defer { closedir(directory) }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name.hasSuffix(".conf") { names.append(name) }
            }
            for name in names.sorted() {
                if let text = readSmallFile(dropIns + "/" + name) { files.append(text) }
            }
        }
        return files
    }

    /// `path` from the root: relative ones are taken from the working directory.
    static func absolutePath(_ path: String) -> String {
        guard !path.hasPrefix("/"), let directory = getcwd(nil, 0) else { return path }
        defer { free(directory) }
        return String(cString: directory) + "/" + path
    }

    /// The directory `path` is in, from the root: a relative path's `.` (or `x/..`) resolved
    /// against the working directory, so that a message and its fix name the directory
    /// wherever they are read or run.
    static func absoluteDirectory(of path: String) -> String {
        let directory = parentDirectory(of: path)
        guard !directory.hasPrefix("/") else { return directory }
        guard let resolved = realpath(directory, nil) else {
            return parentDirectory(of: absolutePath(path))
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// At most 1 MiB of a file, read-only; nil when it cannot be opened.
    static func readSmallFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
