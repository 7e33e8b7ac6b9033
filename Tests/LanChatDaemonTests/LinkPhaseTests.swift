import LanChatCore
import Testing

@testable import LanChatDaemon

/// The link's phase as a value (no actor, no store, no socket): every decision the link takes
/// after an `await` is one of these transitions, so the races it must survive are driven
/// here step by step.
@Suite struct LinkPhaseTests {
    static let own = PeerKey(bytes: [UInt8](repeating: 0x11, count: 31) + [0x01])
    static let peer = PeerKey(bytes: [UInt8](repeating: 0x22, count: 31) + [0x02])

    static func keys() throws -> (own: PeerKey, peer: PeerKey) {
        (try #require(own), try #require(peer))
    }

    static func session(_ tag: String, dialledByPeer: Bool = true) throws -> FakeSession {
        FakeSession(peer: try keys().peer, tag: tag, dialledByPeer: dialledByPeer)
    }

    static let emptyFlow = OutgoingFlow(stream: nil, highestAssigned: 0)

    /// A link that was offline, with `session` kept and opening.
    static func opening(_ session: FakeSession) throws -> LinkPhase {
        var phase = LinkPhase.offline
        _ = phase.sessionUp(session, ownKey: try keys().own, now: .now)
        return phase
    }

    @Test func aSessionOpensThenAwaitsTheHelloThenIsEstablished() throws {
        let (own, _) = try Self.keys()
        let a = try Self.session("a")
        var phase = LinkPhase.offline
        guard case .keep(let replacing) = phase.sessionUp(a, ownKey: own, now: .now) else {
            Issue.record("the only session must be kept")
            return
        }
        #expect(replacing == nil)
        #expect(phase.isCurrent(a) && phase.flow == nil && phase.established == nil)
        let helloSent = phase.ourHelloSent(on: a, flow: Self.emptyFlow)
        #expect(helloSent)
        #expect(phase.flow != nil && phase.established == nil)
        let established = phase.peerHelloApplied(on: a)
        #expect(established)
        #expect(phase.established?.session === a)
        let wasCurrent = phase.sessionDown(a)
        #expect(wasCurrent)
        #expect(phase.session == nil)
    }

    @Test func aReconnectReplacesTheCurrentSessionWithReplaced() throws {
        let (own, _) = try Self.keys()
        let old = try Self.session("old")
        let new = try Self.session("new")
        var phase = LinkPhase.established(old, Self.emptyFlow)
        // Both dialled by the peer: not a simultaneous dial, newest wins.
        guard case .keep(let replacing) = phase.sessionUp(new, ownKey: own, now: .now) else {
            Issue.record("a reconnect must be kept")
            return
        }
        #expect(replacing?.session === old)
        #expect(replacing?.reason == .replaced)
        #expect(phase.isCurrent(new) && !phase.isCurrent(old))
    }

    @Test func aSimultaneousDialKeepsTheSameSurvivorOnBothSides() throws {
        let (own, peer) = try Self.keys()
        let ours = try Self.session("ours", dialledByPeer: false)
        let theirs = try Self.session("theirs", dialledByPeer: true)
        var phase = LinkPhase.established(ours, Self.emptyFlow)
        let decision = phase.sessionUp(theirs, ownKey: own, now: .now)
        // §3.9: the session dialled by the lower key survives.
        let survivor: FakeSession = own < peer ? ours : theirs
        switch decision {
        case .refuse:
            #expect(survivor === ours)
            #expect(phase.isCurrent(ours))
        case .keep(let replacing):
            #expect(survivor === theirs)
            #expect(replacing?.session === ours && replacing?.reason == .duplicate)
            #expect(phase.isCurrent(theirs))
        }
    }

    @Test func aHelloReadyForAReplacedSessionIsDropped() throws {
        let (own, _) = try Self.keys()
        let first = try Self.session("first")
        let second = try Self.session("second")
        var phase = try Self.opening(first)
        // While `first` read the store for its HELLO, `second` replaced it.
        _ = phase.sessionUp(second, ownKey: own, now: .now)
        let helloSent = phase.ourHelloSent(on: first, flow: Self.emptyFlow)
        #expect(!helloSent)
        #expect(phase.isCurrent(second) && phase.flow == nil)
        // And after a close while reading, nothing comes back to life.
        phase.sessionDown(second)
        let reopened = phase.ourHelloSent(on: second, flow: Self.emptyFlow)
        #expect(!reopened)
        #expect(phase.session == nil)
    }

    @Test func messagesCommittedWhileTheSessionOpensJoinTheFlow() throws {
        let a = try Self.session("a")
        var phase = try Self.opening(a)
        // The store was read (stream 7, nothing assigned yet); two commits land meanwhile.
        phase.committed(stream: 7, upTo: 1)
        phase.committed(stream: 7, upTo: 2)
        let helloSent = phase.ourHelloSent(on: a, flow: OutgoingFlow(stream: 7, highestAssigned: 0))
        #expect(helloSent)
        #expect(phase.flow?.highestAssigned == 2)
        _ = phase.updateFlow(on: a) {
            $0.helloReceived(
                inStream: 7, inDelivered: 0, inRead: 0,
                stored: .init(stream: 7, firstUndelivered: 1))
        }
        #expect(phase.flow?.sendable == 1...2)
    }

    /// PeerLink's order when the first message to a peer is sent as its HELLO arrives: the
    /// store is read for the HELLO (no stream yet), the message is committed, the HELLO is
    /// applied. The message is sendable on this session (in CI it once waited for the next).
    @Test func theFirstMessageCommittedDuringTheHellosReadIsSendable() throws {
        let a = try Self.session("a")
        var phase = try Self.opening(a)
        let helloSent = phase.ourHelloSent(on: a, flow: Self.emptyFlow)
        #expect(helloSent)
        phase.committed(stream: 7, upTo: 1)
        _ = phase.updateFlow(on: a) {
            $0.helloReceived(inStream: 0, inDelivered: 0, inRead: 0, stored: nil)
        }
        let established = phase.peerHelloApplied(on: a)
        #expect(established)
        #expect(phase.established?.flow.sendable == 1...1)
    }

    @Test func thePeersHelloCountsOnlyOnTheSessionAwaitingIt() throws {
        let a = try Self.session("a")
        let b = try Self.session("b")
        var phase = try Self.opening(a)
        let beforeOurHello = phase.peerHelloApplied(on: a)
        let ourHello = phase.ourHelloSent(on: a, flow: Self.emptyFlow)
        let onAnotherSession = phase.peerHelloApplied(on: b)
        let onItsSession = phase.peerHelloApplied(on: a)
        let again = phase.peerHelloApplied(on: a)
        #expect(!beforeOurHello && ourHello && !onAnotherSession && onItsSession && !again)
    }

    @Test func aGroupFrameQueuedAwaitingTheHelloIsTakenOnceAndOnlyByThatSession() throws {
        let a = try Self.session("a")
        let other = try Self.session("other")
        var phase = try Self.opening(a)
        // Opening: the HELLO's read of the frames comes later, so nothing is noted.
        phase.groupFrameQueued()
        _ = phase.ourHelloSent(on: a, flow: Self.emptyFlow)
        let noneYet = phase.takeGroupFramesQueued(on: a)
        phase.groupFrameQueued()
        _ = phase.updateFlow(on: a) { $0.assigned(stream: 3, upTo: 1) }
        let forAnother = phase.takeGroupFramesQueued(on: other)
        let taken = phase.takeGroupFramesQueued(on: a)
        let takenAgain = phase.takeGroupFramesQueued(on: a)
        #expect(!noneYet && !forAnother && taken && !takenAgain)
        // Established: a queued frame is sent at once, there is nothing to note.
        phase.groupFrameQueued()
        _ = phase.peerHelloApplied(on: a)
        phase.groupFrameQueued()
        let takenEstablished = phase.takeGroupFramesQueued(on: a)
        #expect(!takenEstablished && phase.established?.session === a)
        #expect(phase.flow?.highestAssigned == 1)
    }

    @Test func aFlowStepForAnotherSessionChangesNothing() throws {
        let (own, _) = try Self.keys()
        let current = try Self.session("current")
        let stale = try Self.session("stale")
        var phase = LinkPhase.established(
            current, OutgoingFlow(stream: 5, highestAssigned: 3))
        let touched = phase.updateFlow(on: stale) { _ in true }
        #expect(touched == nil)
        let wasCurrent = phase.sessionDown(stale)
        #expect(!wasCurrent)
        #expect(phase.isCurrent(current))
        _ = own
    }
}
