import LanChatCore
import LanChatDiscovery
import LanChatTestSupport
import Testing

/// The Avahi client lifecycle as a state machine: one warning per outage, publish when the
/// daemon runs, re-create the client on failure with backoff, report each state once.
@Suite struct ClientLifecycleTests {
    @Test func daemonAbsentAtStartWarnsOnceAndReportsConnecting() {
        var lifecycle = ClientLifecycle()
        #expect(
            lifecycle.clientChanged(to: .connecting) == [
                .report(.connecting), .warnPaused(.daemonAbsent),
                .replaceIfStillConnecting(afterMilliseconds: 10_000),
            ])
        #expect(lifecycle.isPaused)
    }

    @Test func daemonAppearingResumesBrowsesAndPublishes() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .connecting)
        #expect(
            lifecycle.clientChanged(to: .registering)
                == [.noteResumed, .startBrowsing, .withdraw])
        #expect(
            lifecycle.clientChanged(to: .running) == [.startBrowsing, .publish, .report(.running)])
        #expect(!lifecycle.isPaused)
    }

    @Test func daemonRunningAtStartNeitherWarnsNorResumes() {
        var lifecycle = ClientLifecycle()
        #expect(
            lifecycle.clientChanged(to: .running) == [.startBrowsing, .publish, .report(.running)])
    }

    @Test func aDaemonRestartReconnectsAtOnceAndWarnsOncePerOutage() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .running)
        #expect(
            lifecycle.clientChanged(to: .disconnected)
                == [.discardClient, .report(.connecting), .reconnect(afterMilliseconds: 0)])
        // The new client waits for the daemon: the outage's one warning.
        #expect(
            lifecycle.clientChanged(to: .connecting) == [
                .warnPaused(.daemonAbsent), .replaceIfStillConnecting(afterMilliseconds: 10_000),
            ])
        #expect(
            lifecycle.clientChanged(to: .running)
                == [.noteResumed, .startBrowsing, .publish, .report(.running)])
        // A second outage warns again.
        _ = lifecycle.clientChanged(to: .disconnected)
        #expect(
            lifecycle.clientChanged(to: .connecting) == [
                .warnPaused(.daemonAbsent), .replaceIfStillConnecting(afterMilliseconds: 10_000),
            ])
    }

    @Test func repeatedDisconnectsBackOff() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .disconnected)
        let second = lifecycle.clientChanged(to: .disconnected)
        #expect(second == [.discardClient, .reconnect(afterMilliseconds: 2_000)])
    }

    @Test func hostNameCollisionWithdrawsUntilRunningAgain() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .running)
        #expect(
            lifecycle.clientChanged(to: .hostNameCollision)
                == [.startBrowsing, .withdraw, .report(.connecting)])
        #expect(
            lifecycle.clientChanged(to: .running) == [.startBrowsing, .publish, .report(.running)])
    }

    @Test func hardFailuresReportFailedAndRetryWithBackoff() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .running)
        #expect(
            lifecycle.clientChanged(to: .failed("Access denied"))
                == [
                    .discardClient, .logFailure("Access denied"), .report(.failed),
                    .reconnect(afterMilliseconds: 1_000),
                ])
        let delays = (0..<6).compactMap { _ -> Int? in
            guard case .reconnect(let delay) = lifecycle.clientChanged(to: .failed("x")).last
            else { return nil }
            return delay
        }
        #expect(delays == [2_000, 4_000, 8_000, 10_000, 10_000, 10_000])
    }

    @Test func noClientAtAllReportsFailedWarnsOnceAndKeepsRetrying() {
        var lifecycle = ClientLifecycle()
        #expect(
            lifecycle.clientCreationFailed("Daemon not running")
                == [
                    .report(.failed), .warnPaused(.clientUnavailable("Daemon not running")),
                    .reconnect(afterMilliseconds: 1_000),
                ])
        #expect(
            lifecycle.clientCreationFailed("Daemon not running")
                == [.reconnect(afterMilliseconds: 2_000)])
        // The bus is back but the daemon is not: same outage, no second warning.
        #expect(
            lifecycle.clientChanged(to: .connecting) == [
                .report(.connecting), .replaceIfStillConnecting(afterMilliseconds: 10_000),
            ])
    }

    @Test func browsingFailureIsAClientFailure() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .running)
        #expect(
            lifecycle.browsingFailed("oops").prefix(2) == [.discardClient, .logFailure("oops")])
    }

    /// Over random sequences: a state is never reported twice in a row, warnings and resumes
    /// alternate, and retries never wait longer than the cap.
    @Test(arguments: 0..<20)
    func invariantsHoldOverRandomSequences(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var lifecycle = ClientLifecycle()
        var lastReport: DiscoveryState?
        var paused = false
        let conditions: [ClientCondition] = [
            .connecting, .registering, .running, .hostNameCollision, .disconnected, .failed("x"),
        ]
        for _ in 0..<200 {
            let actions =
                Int.random(in: 0..<8, using: &random) == 0
                ? lifecycle.clientCreationFailed("x")
                : lifecycle.clientChanged(to: conditions.randomElement(using: &random) ?? .running)
            for action in actions {
                switch action {
                case .report(let state):
                    #expect(state != lastReport)
                    lastReport = state
                case .warnPaused:
                    #expect(!paused)
                    paused = true
                case .noteResumed:
                    #expect(paused)
                    paused = false
                case .reconnect(let delay):
                    #expect((0...ClientLifecycle.maxRetryMilliseconds).contains(delay))
                case .replaceIfStillConnecting(let delay):
                    #expect(delay == ClientLifecycle.connectingRecheckMilliseconds)
                default:
                    break
                }
            }
            #expect(lifecycle.reportedState == lastReport)
        }
    }

    /// avahi-client leaves CONNECTING only when the daemon's bus name appears: a daemon too
    /// slow to answer, which never went away, must not leave the client waiting for good.
    @Test func aClientStillConnectingIsReplacedAfterTenSeconds() {
        var lifecycle = ClientLifecycle()
        _ = lifecycle.clientChanged(to: .running)
        #expect(
            lifecycle.clientChanged(to: .connecting).last
                == .replaceIfStillConnecting(afterMilliseconds: 10_000))
        // The replacement waits in CONNECTING again: checked again, no second warning.
        #expect(
            lifecycle.clientChanged(to: .connecting)
                == [.replaceIfStillConnecting(afterMilliseconds: 10_000)])
    }
}
