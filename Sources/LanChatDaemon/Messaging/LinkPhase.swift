import LanChatCore

/// Where a peer link is with its current session, as one value: which session (if any) is
/// current, and our stream's flow on it. Every step a link takes after an `await` asks this
/// value whether its session is still the current one, so "a reply for a replaced session"
/// or "MSGs before HELLO" cannot be written down.
///
/// ```
///              sessionUp                 ourHelloSent                peerHelloApplied
///  offline ─────────────▶ opening ─────────────────▶ awaitingHello ─────────────────▶ established
///     ▲                     │                            │                                │
///     └─────────────────────┴──── sessionDown / close ───┴────────────────────────────────┘
///  (sessionUp on a non-offline phase: the one-session rule of §3.9 keeps one and moves to
///   opening with the survivor, or leaves the phase as it is)
/// ```
enum LinkPhase {
    /// No session.
    case offline
    /// A session was kept; the store is being read for our HELLO. Messages committed meanwhile
    /// are remembered in `assigned` so the flow built from that read cannot miss them.
    case opening(any LinkSession, assigned: Assigned?)
    /// Our HELLO is out; the peer's HELLO must be the first thing it sends. `groupFramesQueued`:
    /// a GROUP frame was queued since the frames for this session were last read; no session
    /// is established to take it, so applying the peer's HELLO reads them again
    /// (`PeerLink+Groups`).
    case awaitingHello(any LinkSession, OutgoingFlow, groupFramesQueued: Bool)
    /// HELLOs exchanged and the resume applied: MSGs flow both ways.
    case established(any LinkSession, OutgoingFlow)

    /// The highest seq committed on our stream while a session was opening.
    struct Assigned: Equatable {
        var stream: UInt64
        var upTo: UInt64
    }

    var session: (any LinkSession)? {
        switch self {
        case .offline: nil
        case .opening(let session, _), .awaitingHello(let session, _, _),
            .established(let session, _):
            session
        }
    }

    func isCurrent(_ candidate: any LinkSession) -> Bool { session === candidate }

    /// The flow, once our HELLO is out.
    var flow: OutgoingFlow? {
        switch self {
        case .offline, .opening: nil
        case .awaitingHello(_, let flow, _), .established(_, let flow): flow
        }
    }

    /// The session MSGs may be written to (HELLOs exchanged), with the flow.
    var established: (session: any LinkSession, flow: OutgoingFlow)? {
        guard case .established(let session, let flow) = self else { return nil }
        return (session, flow)
    }

    // MARK: Transitions

    enum SessionUpDecision {
        /// Keep the new session (now `opening`); close the one it replaces, if any, with the
        /// reason given.
        case keep(replacing: (session: any LinkSession, reason: CloseReason)?)
        /// Keep the existing one; close the new one as a duplicate.
        case refuse
    }

    /// A new authenticated session with this peer: the one-session rule (§3.9).
    mutating func sessionUp(
        _ new: any LinkSession, ownKey: PeerKey, now: ContinuousClock.Instant
    ) -> SessionUpDecision {
        guard let existing = session else {
            self = .opening(new, assigned: nil)
            return .keep(replacing: nil)
        }
        let outcome = SessionArbitration.decide(
            existingAge: existing.establishedAt.duration(to: now),
            existingInitiator: existing.initiatorKey(ownKey: ownKey),
            newInitiator: new.initiatorKey(ownKey: ownKey))
        switch outcome {
        case .keepExisting:
            return .refuse
        case .replaceAsDuplicate:
            self = .opening(new, assigned: nil)
            return .keep(replacing: (existing, .duplicate))
        case .replaceAsReconnect:
            self = .opening(new, assigned: nil)
            return .keep(replacing: (existing, .replaced))
        }
    }

    /// Our HELLO for `session` is ready, built on `flow` as read from the store. Returns false
    /// (and changes nothing) when `session` is no longer the one opening: its reader was
    /// overtaken by a newer session or a close.
    mutating func ourHelloSent(on candidate: any LinkSession, flow: OutgoingFlow) -> Bool {
        guard case .opening(let session, let assigned) = self, session === candidate else {
            return false
        }
        var flow = flow
        if let assigned { flow.assigned(stream: assigned.stream, upTo: assigned.upTo) }
        self = .awaitingHello(session, flow, groupFramesQueued: false)
        return true
    }

    /// The peer's HELLO, applied: MSGs may flow. False when `candidate` is not the session
    /// waiting for it.
    mutating func peerHelloApplied(on candidate: any LinkSession) -> Bool {
        guard case .awaitingHello(let session, let flow, _) = self, session === candidate else {
            return false
        }
        self = .established(session, flow)
        return true
    }

    /// A GROUP frame was queued for this peer. Only a session awaiting the peer's HELLO needs
    /// to know: an established one is sent the frame at once, and one still opening reads
    /// the frames after this.
    mutating func groupFrameQueued() {
        guard case .awaitingHello(let session, let flow, _) = self else { return }
        self = .awaitingHello(session, flow, groupFramesQueued: true)
    }

    /// Whether a GROUP frame was queued for `candidate` (awaiting the peer's HELLO) since the
    /// last call, and forgets it. False for any other phase or session.
    mutating func takeGroupFramesQueued(on candidate: any LinkSession) -> Bool {
        guard case .awaitingHello(let session, let flow, let queued) = self,
            session === candidate
        else { return false }
        self = .awaitingHello(session, flow, groupFramesQueued: false)
        return queued
    }

    /// New messages on our stream were committed (seqs up to `upTo`).
    mutating func committed(stream: UInt64, upTo: UInt64) {
        switch self {
        case .offline:
            break
        case .opening(let session, let assigned):
            let highest = assigned?.stream == stream ? max(assigned?.upTo ?? 0, upTo) : upTo
            self = .opening(session, assigned: Assigned(stream: stream, upTo: highest))
        case .awaitingHello, .established:
            updateFlow(on: nil) { $0.assigned(stream: stream, upTo: upTo) }
        }
    }

    /// Applies `change` to the flow of `candidate` (any session with a flow when nil). Returns
    /// nil, changing nothing, when that session has no flow here.
    @discardableResult
    mutating func updateFlow<Result>(
        on candidate: (any LinkSession)?, _ change: (inout OutgoingFlow) throws -> Result
    ) rethrows -> Result? {
        switch self {
        case .awaitingHello(let session, var flow, let groupFramesQueued):
            guard candidate == nil || candidate === session else { return nil }
            let result = try change(&flow)
            self = .awaitingHello(session, flow, groupFramesQueued: groupFramesQueued)
            return result
        case .established(let session, var flow):
            guard candidate == nil || candidate === session else { return nil }
            let result = try change(&flow)
            self = .established(session, flow)
            return result
        case .offline, .opening:
            return nil
        }
    }

    /// `candidate` ended or is being closed: if it was current, the link is offline. Returns
    /// whether it was current.
    @discardableResult
    mutating func sessionDown(_ candidate: any LinkSession) -> Bool {
        guard isCurrent(candidate) else { return false }
        self = .offline
        return true
    }
}
