import LanChatCore
import LanChatStore
import Synchronization

/// Tells the links of peers that have a new GROUP frame waiting (`group_outbox`) to send it
/// on their established session now: that group's frames only (found by review: every
/// group the peer shared went again with each change, so n groups cost n² frames).
/// Connected by `LinkRegistry` at its creation; the links and the messenger only know this,
/// not the registry. Peers without a session get their frames first thing on their next
/// session.
final class GroupFanout: Sendable {
    /// In a struct, not bare in the generic `Mutex`: a bare function value gets two more
    /// reabstraction thunks around it on every `withLock` that hands it out (see
    /// `EventCommitObserver`), so each call would cost more than the last.
    private struct Push: Sendable {
        let call: @Sendable ([PeerKey], GroupID) async -> Void
    }

    private let push = Mutex<Push?>(nil)

    func connect(_ push: @escaping @Sendable ([PeerKey], GroupID) async -> Void) {
        self.push.withLock { $0 = Push(call: push) }
    }

    func framesQueued(for peers: [PeerKey], of group: GroupID) async {
        guard let push = push.withLock({ $0 }) else { return }
        await push.call(peers, group)
    }
}

/// Storing a group's new state (our own change, or one we accepted from a member) and handing
/// it to everyone who must learn it: the members and the members it removed. Whoever accepts a
/// new state passes it on to every member it knows (a member added while its adder is offline
/// learns the group from whoever writes to it first), and a state is passed on only when it
/// replaced an older one, so the spreading ends.
///
/// Our own change pins the keys it names that we never met (we chose them). A member's does
/// not, and is passed on only to members we have met or pinned (found by review: one GROUP of
/// 8 KiB from any key, naming us and 254 made-up keys, pinned 254 peers that `who --all`
/// then listed, and queued 255 copies of itself, 2 MB written per frame). A member we never
/// met hears of the group from its members that know it; a message of ours it refused
/// meanwhile, not knowing the group, is sent again once it does (`PeerLink+Groups`).
struct GroupPublisher {
    let services: LinkServices

    enum Outcome {
        case saved
        /// Another state was stored since `previous` was read: read again and retry.
        case conflict
    }

    /// `author`: whose change it is (our own key, or the member it came from), for the
    /// `group.changed` event logged with it. `asRequest`: a group new to us, from a
    /// non-contact under `--accept contacts`: stored as a group request from `author`.
    func publish(
        _ state: GroupUpdate, replacing previous: StoredGroup?, by author: PeerKey,
        asRequest: Bool = false
    ) async throws(StoreError) -> Outcome {
        let own = services.directory.ownKey
        let basis: [PeerKey]
        if let previous, previous.state.version == state.version {
            basis = previous.basis
        } else {
            basis = previous?.state.members ?? []
        }
        let removed = (previous?.state.members ?? []).filter { !state.hasMember($0) }
        let named = Array(Set(state.members + removed)).filter { $0 != own }.sorted()
        let now = services.now()
        let recipients: [PeerKey]
        if author == own {
            for key in named { try await services.directory.pinAhead(key, at: now) }
            recipients = named
        } else {
            recipients = named.filter { services.directory.isPinned($0) }
        }
        let saved = try await services.store.saveGroup(
            StoredGroup(
                state: state, basis: basis, updatedAt: now,
                requestFrom: asRequest && previous == nil ? author : previous?.requestFrom),
            recipients: recipients,
            expectedVersion: previous?.state.version, changedBy: author)
        guard saved else { return .conflict }
        await services.groupFanout.framesQueued(for: recipients, of: state.id)
        return .saved
    }
}
