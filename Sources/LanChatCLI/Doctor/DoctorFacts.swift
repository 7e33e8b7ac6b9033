import LanChatControl

/// Everything `lanchat doctor` learns about the system, gathered once by `DoctorGathering`
/// and then judged by the checks. Plain values, so tests build them by hand.
package struct DoctorFacts: Sendable {
    /// The uid running lanchat: the socket and its directory must be ours.
    package var uid: UInt32
    package var socketPath: String
    package var socket: SocketFacts
    /// Where `socketPath` leads when it is a symbolic link (connect(2) follows it, and so does
    /// the socket check); nil when it is not one.
    package var socketTarget: String?
    /// The socket the systemd user service serves (`$XDG_RUNTIME_DIR/lanchat/lanchatd.sock`).
    /// `socketPath` is another one when --socket or LANCHAT_SOCKET named it: its lanchatd
    /// was started some other way, and `systemctl --user` would act on a different daemon.
    package var defaultSocketPath: String
    /// The daemon's answer to `status`, or why there is none.
    package var status: Result<StatusResult, ControlError>
    /// The daemon's answer to `who --all`; nil when it was not asked (no daemon).
    package var peers: Result<[PeerInfo], ControlError>?
    /// `busctl --system call org.freedesktop.Avahi / org.freedesktop.Avahi.Server
    /// GetVersionString`.
    package var avahiBus: ToolRun
    /// `avahi-daemon --check`, asked only when busctl is missing.
    package var avahiCheck: ToolRun?
    /// `avahi-browse -t -r -p -k _lanchat._tcp`; nil when not run (no daemon or --no-mdns).
    package var browse: ToolRun?
    /// `ip -j addr`.
    package var addresses: ToolRun
    /// Connecting to each listening address of the daemon; empty when not tried.
    package var portProbes: [PortProbe]
    /// `nft -j list ruleset`.
    package var ruleset: ToolRun
    /// `resolvectl mdns`.
    package var resolvectl: ToolRun
    /// `MulticastDNS=` from /etc/systemd/resolved.conf and its drop-ins, the last one set;
    /// nil when none sets it. Read only when resolvectl is missing.
    package var resolvedConfMulticastDNS: String?
    /// The daemon's data directory (from `status`) as this process sees it; nil without a
    /// daemon.
    package var dataDirectory: DataDirectoryFacts?
    /// The absolute directory the socket is in (its link followed): for a relative --socket
    /// the path's own directory is `.`, which names nothing where doctor's output is read
    /// (QA). Nil when not known; the socket check then takes the path's own directory.
    package var socketDirectory: String?
    /// Whether the system D-Bus, which Avahi is reached through, accepts connections.
    package var systemBus: SystemBusFacts
    /// Who holds the default data directory's lock; looked at only when the daemon did not
    /// answer.
    package var dataDirectoryLock: DataDirectoryLockFacts?

    package init(
        uid: UInt32, socketPath: String, socket: SocketFacts, socketTarget: String? = nil,
        defaultSocketPath: String? = nil, status: Result<StatusResult, ControlError>,
        peers: Result<[PeerInfo], ControlError>? = nil, avahiBus: ToolRun = .missing("busctl"),
        avahiCheck: ToolRun? = nil, browse: ToolRun? = nil,
        addresses: ToolRun = .missing("ip"), portProbes: [PortProbe] = [],
        ruleset: ToolRun = .missing("nft"), resolvectl: ToolRun = .missing("resolvectl"),
        resolvedConfMulticastDNS: String? = nil, dataDirectory: DataDirectoryFacts? = nil,
        socketDirectory: String? = nil, systemBus: SystemBusFacts = .accepting,
        dataDirectoryLock: DataDirectoryLockFacts? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.dataDirectoryLock = dataDirectoryLock
        self.socketDirectory = socketDirectory
        self.systemBus = systemBus
        self.uid = uid
        self.socketPath = socketPath
        self.socket = socket
        self.socketTarget = socketTarget
        self.defaultSocketPath = defaultSocketPath ?? socketPath
        self.status = status
        self.peers = peers
        self.avahiBus = avahiBus
        self.avahiCheck = avahiCheck
        self.browse = browse
        self.addresses = addresses
        self.portProbes = portProbes
        self.ruleset = ruleset
        self.resolvectl = resolvectl
        self.resolvedConfMulticastDNS = resolvedConfMulticastDNS
    }

    /// The daemon's status when it answered.
    var daemon: StatusResult? { try? status.get() }

    /// Whether the socket is the user service's, directly or through a symbolic link.
    var usesDefaultSocket: Bool {
        socketPath == defaultSocketPath || socketTarget == defaultSocketPath
    }
}

/// The data directory: whether we may write there, and the room its file system has left.
package struct DataDirectoryFacts: Sendable, Hashable {
    package var path: String
    package var writable: Bool
    /// Bytes an unprivileged writer may still use (`statvfs`: `f_bavail × f_frsize`); nil
    /// when it cannot be read.
    package var freeBytes: UInt64?

    package init(path: String, writable: Bool, freeBytes: UInt64?) {
        self.path = path
        self.writable = writable
        self.freeBytes = freeBytes
    }
}

/// The control socket and its directory as `stat(2)` sees them, a symbolic link followed.
package enum SocketFacts: Sendable, Hashable {
    case missing
    /// A directory: never the socket, and never to be moved aside (QA gave the daemon's data
    /// directory, which holds the identity key).
    case directory
    case notASocket
    /// Permission bits (`st_mode & 0o777`) and owners of the socket and its directory.
    case present(mode: UInt32, owner: UInt32, directoryMode: UInt32, directoryOwner: UInt32)
}

/// One external program run by the doctor.
package enum ToolRun: Sendable, Hashable {
    /// Not found in PATH, /usr/sbin or /sbin.
    case missing(String)
    /// It ran; `timedOut` when it was killed at the time limit (what it printed is kept).
    case ran(ToolOutput)
}

package struct ToolOutput: Sendable, Hashable {
    package var status: Int32
    package var standardOutput: String
    package var standardError: String
    package var timedOut: Bool

    package init(
        status: Int32 = 0, standardOutput: String = "", standardError: String = "",
        timedOut: Bool = false
    ) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.timedOut = timedOut
    }

    var succeeded: Bool { status == 0 && !timedOut }

    /// The first line of standard error (or output), for a detail.
    var firstErrorLine: String {
        let text = standardError.isEmpty ? standardOutput : standardError
        return trimmed(text.split(separator: "\n").first ?? "")
    }
}

/// One attempt to connect to the daemon's TCP listener.
package struct PortProbe: Sendable, Hashable {
    /// `127.0.0.1:41000`, `[::1]:41000`.
    package var address: String
    /// nil when it connected; else why not (`connection refused`, `timed out`).
    package var failure: String?

    package init(address: String, failure: String? = nil) {
        self.address = address
        self.failure = failure
    }
}
