import Glibc
import LanChatControl
import LanChatCore
import LanChatTransport
import Logging

/// Everything `lanchatd` runs with (PRODUCT.md §3). Built by `lanchatd` from its options;
/// tests build it directly (and may listen on 127.0.0.1 only, or shorten the timers).
public struct DaemonConfiguration: Sendable {
    /// Display name, ≤ 64 bytes; default `$USER@$(hostname -s)`.
    public var name: String
    public var dataDirectory: String
    public var socketPath: String
    /// Address the TCP listener binds: `::` (every interface, IPv4 included) by default.
    public var listenHost = "::"
    /// 0: an ephemeral port, announced over mDNS.
    public var port = 0
    public var staticPeers: [StaticPeer] = []
    public var mdns = true
    public var interfaces: [String] = []
    public var readReceipts = true
    /// `--accept`: whether non-contacts' messages become message requests (PRODUCT.md §6).
    public var accept = AcceptPolicy.anyone
    /// `--notify-command`: run by `/bin/sh -c` for each incoming message (`MessageNotifier`).
    public var notifyCommand: String?
    /// `--log-level`: applied by `lanchatd` through its `LogLevelSetting`.
    public var logLevel: Logger.Level = .info
    /// `--reset-identity`: move a broken key aside and make a new one.
    public var resetIdentity = false
    /// `--repair-store`: copy a damaged store into a new one before starting (`StoreRepair`).
    public var repairStore = false
    public var transport = TransportConfiguration()

    public init(name: String, dataDirectory: String, socketPath: String) {
        self.name = name
        self.dataDirectory = dataDirectory
        self.socketPath = socketPath
    }

    /// The defaults of PRODUCT.md §2–§3 for this user and environment.
    public static func defaults(environment: [String: String], uid: uid_t = getuid())
        -> DaemonConfiguration
    {
        var configuration = DaemonConfiguration(
            name: defaultName(environment: environment),
            // Empty when there is no home directory: `validate` asks for --data-dir.
            dataDirectory: DataDirectoryPath.defaultDirectory(environment: environment, uid: uid)
                ?? "",
            socketPath: ControlSocketPath.resolve(explicit: nil, environment: environment, uid: uid)
        )
        if let seconds = deadTimeoutSeconds(environment) {
            // Networks (and tests) that must notice a pulled cable sooner than 60 s. The
            // keepalive PING keeps the protocol's 1:4 ratio to the dead timeout.
            configuration.transport.deadTimeout = .milliseconds(Int64(seconds * 1000))
            configuration.transport.keepaliveInterval = .milliseconds(Int64(seconds * 250))
        }
        return configuration
    }

    /// `LANCHAT_DEAD_TIMEOUT` when it is a number of seconds from 1 to 3600.
    private static func deadTimeoutSeconds(_ environment: [String: String]) -> Double? {
        guard let text = environment["LANCHAT_DEAD_TIMEOUT"], let seconds = Double(text),
            seconds >= 1, seconds <= 3600
        else { return nil }
        return seconds
    }

    /// Why `LANCHAT_DEAD_TIMEOUT` is ignored, when it is set and not a number of seconds from
    /// 1 to 3600: the daemon warns, so a typo does not silently keep the 60 s default.
    public static func ignoredDeadTimeout(environment: [String: String]) -> String? {
        guard let text = environment["LANCHAT_DEAD_TIMEOUT"], deadTimeoutSeconds(environment) == nil
        else { return nil }
        return "LANCHAT_DEAD_TIMEOUT='\(text)' is not a number of seconds from 1 to 3600; "
            + "using the default of 60 s"
    }

    /// `$USER@$(hostname -s)`, cut to 64 bytes on a character boundary. A `USER` that could
    /// not be a name (empty, or with a control character: found by QA, the start then failed
    /// over a `--name` never given) gives way to `LOGNAME`, the account's name, `user<UID>`.
    static func defaultName(environment: [String: String]) -> String {
        let account = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) }
        let user =
            [environment["USER"], environment["LOGNAME"], account].compactMap { $0 }.first {
                !$0.isEmpty && displayNameProblem($0) == nil
            } ?? "user\(getuid())"
        var buffer = [CChar](repeating: 0, count: 256)
        let host: String =
            gethostname(&buffer, buffer.count) == 0
            ? String(
                decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : "localhost"
        let short = host.split(separator: ".").first.map(String.init) ?? host
        var name = "\(user)@\(short)"
        while name.utf8.count > Limits.maxDisplayNameBytes { name.removeLast() }
        return name
    }

    /// Why `name` cannot be our display name, or nil: it is 1 to 64 bytes, and has no control
    /// character (peers show it in their terminals, and a NUL cuts it short in C strings
    /// such as the mDNS record's).
    static func displayNameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= Limits.maxDisplayNameBytes else {
            return "must be 1 to \(Limits.maxDisplayNameBytes) bytes"
        }
        // Found by QA: " " was a name, and "  alice  " showed as two names would; and a
        // name of U+200B alone, which shows nothing.
        guard !name.isBlankText else { return "cannot be blank" }
        guard name.first?.isWhitespace == false, name.last?.isWhitespace == false else {
            return name.allSatisfy(\.isWhitespace)
                ? "cannot be blank" : "cannot start or end with white space"
        }
        // As aliases and group names: a bidi override in a name would reorder what the
        // peers' terminals show around it (they escape it, but the name is then unreadable).
        guard !name.unicodeScalars.contains(where: \.isControlOrBidiOverride)
        else { return "cannot contain control characters or bidi overrides" }
        return nil
    }

    /// Why `name` can never name a network interface on Linux, or nil. One that does not
    /// exist yet is fine (a VPN or USB interface comes later), but a name the kernel cannot
    /// give would scope the daemon to loopback for ever (found by QA: accepted, "used once
    /// it appears").
    public static func interfaceNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty; give an interface name" }
        // IFNAMSIZ is 16 with the terminating NUL (dev_valid_name in the kernel).
        if name.utf8.count > 15 {
            return "'\(name)' is longer than 15 bytes, which no interface name is"
        }
        if name == "." || name == ".." || name.contains("/") || name.contains(":")
            || name.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
            })
        {
            return
                "'\(name)' cannot be an interface name (no '/', ':', white space or control characters)"
        }
        return nil
    }

    /// The longest command `/bin/sh -c` can be given: the kernel refuses a longer single
    /// argument (MAX_ARG_STRLEN, 32 pages) at every message, so it is refused at load
    /// (found by QA: accepted, then "could not be started (errno 7)" for each message).
    static let maxNotifyCommandBytes = 32 * 4096 - 1

    public static func notifyCommandProblem(_ command: String) -> String? {
        guard command.utf8.count <= maxNotifyCommandBytes else {
            return "is longer than 128 KiB, more than /bin/sh -c can be given"
        }
        return command.utf8.contains(0) ? "cannot contain a NUL character" : nil
    }

    /// Checks the values a user can get wrong; the message says which and why.
    public func validate() throws(DaemonError) {
        if let problem = Self.displayNameProblem(name) { throw .usage("--name \(problem)") }
        guard (0...65535).contains(port) else { throw .usage("--port must be 0 to 65535") }
        guard !dataDirectory.isEmpty else {
            throw .configuration(
                "no data directory: HOME is not set to an absolute path and the password "
                    + "database gives this user no home directory; give --data-dir")
        }
        guard dataDirectory.hasPrefix("/") else {
            throw .usage("--data-dir must be an absolute path")
        }
        guard socketPath.utf8.count < 108 else {
            throw .usage("--socket path is too long for a Unix socket (max 107 bytes)")
        }
    }
}

/// A `--peer [ID@]HOST:PORT`: a peer dialled without mDNS. With an id, the key is pinned in
/// advance and a device presenting another key is refused (PROTOCOL.md §3.8 row 4).
public struct StaticPeer: Sendable, Hashable, CustomStringConvertible {
    public var endpoint: Endpoint
    public var key: PeerKey?

    public init(endpoint: Endpoint, key: PeerKey? = nil) {
        self.endpoint = endpoint
        self.key = key
    }

    public init(parsing text: String) throws(DaemonError) {
        do {
            self = try Self.parse(text)
        } catch {
            throw .usage("--peer \(text): \(error.problem)")
        }
    }

    /// What is wrong with a `[ID@]HOST:PORT`, for `--peer` and the file's `peer` to say.
    struct ParseError: Error {
        let problem: String
    }

    static func parse(_ text: String) throws(ParseError) -> StaticPeer {
        var rest = Substring(text)
        var key: PeerKey?
        if let at = text.firstIndex(of: "@") {
            guard let parsed = PeerKey(id: text[..<at]) else {
                throw ParseError(problem: "the part before @ is not a 52-character peer id")
            }
            key = parsed
            rest = text[text.index(after: at)...]
        }
        guard let endpoint = Endpoint(parsing: rest) else {
            throw ParseError(problem: "expected [ID@]HOST:PORT (IPv6 as [ADDR]:PORT)")
        }
        // A typo is refused now, not looked up in DNS for as long as the daemon runs
        // (found by QA: "a b:1", "a..b:1" and "999.1.1.1:5" were dialled forever).
        if let problem = hostProblem(endpoint) { throw ParseError(problem: problem) }
        return StaticPeer(endpoint: endpoint, key: key)
    }

    /// Why `endpoint`'s host cannot be dialled, or nil: an IPv6 address (in brackets), an
    /// IPv4 address, or a host name of letters, digits, `-` and `_` in dot-separated labels
    /// of 1 to 63 characters (a final dot allowed), at most 253 in all.
    static func hostProblem(_ endpoint: Endpoint) -> String? {
        let host = endpoint.host
        if host.contains(":") {
            return IPAddressText.isIPv6(host) ? nil : "'\(host)' is not an IPv6 address"
        }
        guard endpoint.scope == nil else {
            return "an interface scope (%) is only for IPv6 link-local addresses"
        }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) {
            return IPAddressText.isIPv4(host) ? nil : "'\(host)' is not an IPv4 address"
        }
        let valid =
            name.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && label.allSatisfy(Self.isHostNameCharacter)
            }
        return valid ? nil : "'\(host)' is not a host name or an IP address"
    }

    private static func isHostNameCharacter(_ character: Character) -> Bool {
        character.isASCII
            && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }

    public var description: String { key.map { "\($0.id)@\(endpoint)" } ?? endpoint.description }
}

/// IP address literals, as the C library reads them.
enum IPAddressText {
    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}
