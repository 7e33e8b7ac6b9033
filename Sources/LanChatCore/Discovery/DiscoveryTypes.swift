/// What discovery (Avahi mDNS or the static `--peer` list) tells the daemon, and what the
/// daemon asks it to announce. Discovery only says *where* to dial and which key to expect:
/// nothing it reports is trusted (PROTOCOL.md §3.3, §3.8).

/// Identifies one announced service instance, as the mDNS browser reports it.
public struct ServiceInstance: Hashable, Sendable, CustomStringConvertible {
    /// The instance name, e.g. `alice@deskpro (3EBM-VERF)`; Avahi may rename on collision.
    public var name: String
    /// Interface name the record was seen on (e.g. `eth0`); nil for static peers.
    public var interface: String?

    public init(name: String, interface: String?) {
        self.name = name
        self.interface = interface
    }

    public var description: String { interface.map { "\(name) on \($0)" } ?? name }
}

/// The parsed TXT record of `_lanchat._tcp` (PROTOCOL.md §10). Only `key` matters for
/// security, and only as an expectation for the dial; the rest is display-only.
public struct PeerAnnouncement: Hashable, Sendable {
    public var key: PeerKey
    /// Highest wire version the peer says it supports (`v=`).
    public var maxVersion: UInt8
    public var status: AnnouncedStatus
    public var statusText: String

    public init(key: PeerKey, maxVersion: UInt8, status: AnnouncedStatus, statusText: String) {
        self.key = key
        self.maxVersion = maxVersion
        self.status = status
        self.statusText = statusText
    }
}

/// Presence values of the TXT record (`status=avail|away|busy`) and of HELLO/PRESENCE
/// (0 available, 1 away, 2 busy).
public enum AnnouncedStatus: UInt8, Hashable, Sendable, CaseIterable {
    case available = 0
    case away = 1
    case busy = 2

    public var txtValue: String {
        switch self {
        case .available: "avail"
        case .away: "away"
        case .busy: "busy"
        }
    }

    public init?(txtValue: String) {
        guard let value = Self.allCases.first(where: { $0.txtValue == txtValue }) else {
            return nil
        }
        self = value
    }
}

/// A resolved service: where it is and what it claims.
public struct DiscoveredPeer: Hashable, Sendable {
    public var instance: ServiceInstance
    /// The host name the service resolved to (a label, never identity).
    public var hostName: String
    /// Addresses to dial, best first (IPv4 then IPv6).
    public var endpoints: [Endpoint]
    /// Nil for a static `--peer` without an id: the key is learned in the handshake.
    public var announcement: PeerAnnouncement?

    public init(
        instance: ServiceInstance, hostName: String, endpoints: [Endpoint],
        announcement: PeerAnnouncement?
    ) {
        self.instance = instance
        self.hostName = hostName
        self.endpoints = endpoints
        self.announcement = announcement
    }
}

/// State of the mDNS backend, reported by `lanchat status` as `avahi`.
public enum DiscoveryState: String, Hashable, Sendable {
    /// Registered with avahi-daemon and publishing.
    case running
    /// avahi-daemon is absent or restarting; the daemon keeps serving and retries.
    case connecting
    /// A hard error (e.g. libavahi cannot create a client at all).
    case failed
    /// `--no-mdns`.
    case disabled
}

public enum DiscoveryEvent: Hashable, Sendable {
    /// A service was resolved, or resolved again with new addresses or TXT.
    case found(DiscoveredPeer)
    /// The record is gone (goodbye packet or cache expiry). Does not close live sessions.
    case lost(ServiceInstance)
    case stateChanged(DiscoveryState)
}

/// What we announce: instance name, port and TXT (`txtvers`, `v`, `id`, `status`, `msg`).
public struct Advertisement: Hashable, Sendable {
    public var instanceName: String
    public var port: UInt16
    public var key: PeerKey
    public var status: AnnouncedStatus
    public var statusText: String

    public init(
        instanceName: String, port: UInt16, key: PeerKey, status: AnnouncedStatus,
        statusText: String
    ) {
        self.instanceName = instanceName
        self.port = port
        self.key = key
        self.status = status
        self.statusText = statusText
    }
}

extension Advertisement {
    /// The longest DNS-SD instance name: one DNS label (RFC 6763 §4.1.1).
    public static let maxInstanceNameBytes = 63

    /// `NAME (KEYTAG)`, the display name shortened on a character boundary so the whole
    /// instance name fits in one DNS label (PROTOCOL.md §10).
    public static func instanceName(displayName: String, keyTag: String) -> String {
        let suffix = " (\(keyTag))"
        var name = displayName
        while !name.isEmpty, name.utf8.count + suffix.utf8.count > maxInstanceNameBytes {
            name.removeLast()
        }
        return name + suffix
    }

    /// The display name inside an instance name made by `instanceName` (for peers seen only
    /// through discovery so far); the whole instance name when it has no key tag suffix.
    public static func displayName(fromInstanceName instance: String) -> String {
        guard instance.hasSuffix(")"), let open = instance.lastIndex(of: "("),
            open > instance.startIndex,
            instance[instance.index(before: open)] == " "
        else { return instance }
        return String(instance[..<instance.index(before: open)])
    }
}
