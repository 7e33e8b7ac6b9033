import LanChatCore

/// The Avahi client's state reduced to what the lifecycle needs (`AvahiClientState` plus
/// `avahi_client_errno` on failure).
package enum ClientCondition: Hashable, Sendable {
    /// `AVAHI_CLIENT_CONNECTING`: the client waits for avahi-daemon to appear on D-Bus.
    case connecting
    /// `AVAHI_CLIENT_S_REGISTERING`: the daemon is (re)establishing its host name.
    case registering
    /// `AVAHI_CLIENT_S_RUNNING`: the daemon is up and services can be published.
    case running
    /// `AVAHI_CLIENT_S_COLLISION`: the daemon's host name collided; it picks a new one.
    case hostNameCollision
    /// `AVAHI_CLIENT_FAILURE` with `AVAHI_ERR_DISCONNECTED`: the daemon went away.
    case disconnected
    /// `AVAHI_CLIENT_FAILURE` for any other reason (the text of `avahi_strerror`).
    case failed(String)
}

/// Why mDNS discovery is paused, for the one warning logged per outage.
package enum PauseReason: Hashable, Sendable {
    /// The client is connected to D-Bus and waits for avahi-daemon.
    case daemonAbsent
    /// `avahi_client_new` failed outright, e.g. no system D-Bus (the error text).
    case clientUnavailable(String)
}

/// What the engine must do in response to a lifecycle event, in order.
package enum LifecycleAction: Hashable, Sendable {
    /// Emit `.stateChanged`; only produced when the state differs from the last report.
    case report(DiscoveryState)
    /// Log the single "mDNS discovery paused" warning of this outage.
    case warnPaused(PauseReason)
    /// Log that avahi-daemon is reachable again after a warned outage.
    case noteResumed
    /// Create the service browser if there is none.
    case startBrowsing
    /// Publish (or re-publish) the advertisement if there is one.
    case publish
    /// Reset the entry group: the daemon's host name is not established.
    case withdraw
    /// Free the browser, resolvers, entry group and client, and forget every resolved peer.
    case discardClient
    /// Create a new client after this many milliseconds.
    case reconnect(afterMilliseconds: Int)
    /// If the client is still in CONNECTING after this many milliseconds, replace it.
    /// avahi-client leaves CONNECTING only when avahi-daemon's bus name appears; a daemon
    /// that never went away but was too slow to answer the client's first calls (50 daemons
    /// on 2 cores) would leave it there, and the node unpublished, for good.
    case replaceIfStillConnecting(afterMilliseconds: Int)
    /// Log a hard failure (the text of `avahi_strerror`).
    case logFailure(String)
}

/// The connection lifecycle of the Avahi backend as a pure state machine: client states in,
/// actions out. Implements the daemon-restart recipe of avahi-common/defs.h: with
/// `AVAHI_CLIENT_NO_FAIL` the client waits in CONNECTING for the daemon; on FAILURE it is
/// freed and created anew. Owned by the engine and used only on Avahi's poll thread.
package struct ClientLifecycle: Sendable {
    /// The last state reported to the daemon, nil before the first.
    package private(set) var reportedState: DiscoveryState?
    /// True from the pause warning until the daemon is reachable again.
    package private(set) var isPaused = false
    /// Consecutive failures since the client last reached a healthy state; drives backoff.
    package private(set) var consecutiveFailures = 0

    /// The longest wait between two attempts to create a client.
    package static let maxRetryMilliseconds = 10_000
    /// How long a client may wait in CONNECTING before it is replaced.
    package static let connectingRecheckMilliseconds = 10_000

    package init() {}

    /// `avahi_client_new` returned NULL (e.g. no system D-Bus).
    package mutating func clientCreationFailed(_ reason: String) -> [LifecycleAction] {
        consecutiveFailures += 1
        var actions = report(.failed)
        actions += pause(.clientUnavailable(reason))
        actions.append(.reconnect(afterMilliseconds: Self.backoff(consecutiveFailures)))
        return actions
    }

    /// The browser failed: treated like a client failure, since it only fails with it.
    package mutating func browsingFailed(_ reason: String) -> [LifecycleAction] {
        clientChanged(to: .failed(reason))
    }

    package mutating func clientChanged(to condition: ClientCondition) -> [LifecycleAction] {
        switch condition {
        case .connecting:
            consecutiveFailures = 0
            return report(.connecting) + pause(.daemonAbsent)
                + [.replaceIfStillConnecting(afterMilliseconds: Self.connectingRecheckMilliseconds)]
        case .registering, .hostNameCollision:
            consecutiveFailures = 0
            return resume() + [.startBrowsing, .withdraw] + report(.connecting)
        case .running:
            consecutiveFailures = 0
            return resume() + [.startBrowsing, .publish] + report(.running)
        case .disconnected:
            consecutiveFailures += 1
            // The first reconnect after a healthy period is immediate: the new client simply
            // waits in CONNECTING for the daemon to come back.
            let delay = consecutiveFailures == 1 ? 0 : Self.backoff(consecutiveFailures)
            return [.discardClient] + report(.connecting)
                + [.reconnect(afterMilliseconds: delay)]
        case .failed(let reason):
            consecutiveFailures += 1
            return [.discardClient, .logFailure(reason)] + report(.failed)
                + [.reconnect(afterMilliseconds: Self.backoff(consecutiveFailures))]
        }
    }

    /// 1 s, 2 s, 4 s, 8 s, then every 10 s.
    package static func backoff(_ failures: Int) -> Int {
        let exponent = min(max(failures - 1, 0), 4)
        return min(1_000 << exponent, maxRetryMilliseconds)
    }

    private mutating func report(_ state: DiscoveryState) -> [LifecycleAction] {
        guard reportedState != state else { return [] }
        reportedState = state
        return [.report(state)]
    }

    private mutating func pause(_ reason: PauseReason) -> [LifecycleAction] {
        guard !isPaused else { return [] }
        isPaused = true
        return [.warnPaused(reason)]
    }

    private mutating func resume() -> [LifecycleAction] {
        guard isPaused else { return [] }
        isPaused = false
        return [.noteResumed]
    }
}
