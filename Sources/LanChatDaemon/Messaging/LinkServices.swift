import Foundation
import LanChatCore
import LanChatStore
import Logging
import Synchronization

/// What every peer link needs from the rest of the daemon. Built once by `Daemon`.
struct LinkServices: Sendable {
    let store: MessageStore
    let directory: PeerDirectory
    let events: EventBus
    let profile: OwnProfile
    let logger: Logger
    /// With read receipts off we never send READ and always send `in_read = 0` (§9.5).
    /// Changed by a configuration reload; read at each use.
    let readReceipts: ReadReceiptsSetting
    let clock: DaemonClock
    /// Pushes new GROUP frames to the links of connected members (`GroupPublisher`).
    var groupFanout = GroupFanout()

    /// Milliseconds since the Unix epoch, by the injected clock.
    func now() -> Int64 { clock.wallMilliseconds() }
}

extension LinkServices {
    /// With a fixed read-receipts setting (tests, and daemons that never reload).
    init(
        store: MessageStore, directory: PeerDirectory, events: EventBus, profile: OwnProfile,
        logger: Logger, readReceipts: Bool, clock: DaemonClock
    ) {
        self.init(
            store: store, directory: directory, events: events, profile: profile, logger: logger,
            readReceipts: ReadReceiptsSetting(readReceipts), clock: clock)
    }
}

/// `read-receipts` as it is now: set at start and by SIGHUP (`ConfigurationReload`), read by
/// every link when it sends HELLO or READ.
final class ReadReceiptsSetting: Sendable {
    private let value: Atomic<Bool>

    init(_ enabled: Bool) {
        value = Atomic(enabled)
    }

    var enabled: Bool {
        get { value.load(ordering: .relaxed) }
        set { value.store(newValue, ordering: .relaxed) }
    }
}

/// Our own display name, presence and status text: announced in HELLO, PRESENCE and the
/// mDNS TXT record. Changed by `lanchat presence`.
final class OwnProfile: Sendable {
    struct Snapshot: Sendable, Equatable {
        var name: String
        var status: AnnouncedStatus
        var statusText: String
    }

    private let state: Mutex<Snapshot>

    init(name: String, status: AnnouncedStatus = .available, statusText: String = "") {
        state = Mutex(Snapshot(name: name, status: status, statusText: statusText))
    }

    var snapshot: Snapshot { state.withLock { $0 } }

    /// A new display name (configuration reload): status, HELLO and mDNS use it from now on.
    func rename(_ name: String) -> Snapshot {
        state.withLock { current in
            current.name = name
            return current
        }
    }

    /// A new presence, taken only once `keep` (the presence file's save) succeeded: a
    /// presence that would not survive a restart is refused, not half applied. `keep` runs
    /// under the lock so the file and memory change in the same order when two `presence`
    /// calls race; it is one small file write, and `lanchat presence` is rare.
    func update<Failure: Error>(
        status: AnnouncedStatus, statusText: String?,
        keep: (Snapshot) throws(Failure) -> Void
    ) throws(Failure) -> Snapshot {
        try state.withLock { current throws(Failure) in
            var next = current
            next.status = status
            if let statusText { next.statusText = statusText }
            try keep(next)
            current = next
            return next
        }
    }
}
