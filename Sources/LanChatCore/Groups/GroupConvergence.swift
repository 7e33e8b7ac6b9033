/// Whether a received GROUP replaces the state a node holds (PROTOCOL.md §9.7). Pure, so the
/// rule is one function with its tests, and every node decides the same way.
///
/// - A GROUP counts only from a current member: one in the local state, or, for a state of
///   the same version, in the `basis` it was built on (two members who change version 5 at
///   once both make a version 6; each was a member of version 5, even if the other's change
///   removed it).
/// - A higher version wins. For equal versions the one whose canonical encoding
///   (`GroupUpdate.canonicalEncoding`: members sorted) is greater byte by byte wins, so
///   every node that has seen both ends with the same one, whatever order they came in.
/// - An unknown group is taken only when the sender and we are both in it (an invitation).
/// - No GROUP moves a version by more than `largestVersionStep`.
public enum GroupConvergence {
    /// How far one GROUP may move a group's version (from 0 for an invitation). No member
    /// makes four billion changes; a larger jump, up to the top of the u64, would leave no
    /// number for the next change (found by review: a GROUP at 2^64 − 1 made the next local
    /// change trap, and the group could not even be left).
    public static let largestVersionStep: UInt64 = 1 << 32

    public enum Decision: Equatable, Sendable {
        case apply
        /// The same state we hold.
        case alreadyHeld
        /// Older than what we hold, or the loser of an equal-version tie.
        case stale
        /// The sender is not a member of the group as we know it.
        case notFromMember
        /// An unknown group that does not list us (or the sender).
        case notInvited
        /// A version more than `largestVersionStep` past ours (or past 0 for a new group).
        case versionJump
    }

    public static func decide(
        _ incoming: GroupUpdate, from sender: PeerKey, local: GroupUpdate?,
        basis: [PeerKey], ownKey: PeerKey
    ) -> Decision {
        guard let local else {
            guard incoming.hasMember(sender) && incoming.hasMember(ownKey) else {
                return .notInvited
            }
            return incoming.version > largestVersionStep ? .versionJump : .apply
        }
        if incoming.version > local.version {
            guard local.hasMember(sender) else { return .notFromMember }
            return incoming.version - local.version > largestVersionStep ? .versionJump : .apply
        }
        guard incoming.version == local.version else { return .stale }
        let theirs = incoming.canonicalEncoding
        let ours = local.canonicalEncoding
        if theirs == ours { return .alreadyHeld }
        guard local.hasMember(sender) || basis.contains(sender) else { return .notFromMember }
        return ours.lexicographicallyPrecedes(theirs) ? .apply : .stale
    }

    /// Our own change `ours` (built on a state with the members `basis`) lost an
    /// equal-version tie to `winner`, made by another member at the same time: the same change
    /// made again on top of it, one version up, so that a command that succeeded is not
    /// silently undone (found by QA: an add that exited 0 vanished under a rename). A local
    /// change changes one thing: the members (add, remove, leave) or else the name (rename).
    /// Nil when `winner` has it already, or no longer lists `own` (we may not change it).
    public static func reapply(
        _ ours: GroupUpdate, basis: [PeerKey], onto winner: GroupUpdate, own: PeerKey
    ) -> GroupUpdate? {
        guard winner.id == ours.id, winner.hasMember(own) else { return nil }
        let before = Set(basis)
        let after = Set(ours.members)
        var members = Set(winner.members)
        var name = winner.name
        if before == after {
            name = ours.name
        } else {
            members.formUnion(after.subtracting(before))
            members.subtract(before.subtracting(after))
        }
        guard name != winner.name || members != Set(winner.members) else { return nil }
        return next(after: winner, name: name, members: members.sorted())
    }

    /// The next state after a local change: one version up, built on `current`. Nil at the
    /// top of the u64, which `largestVersionStep` keeps four billion GROUPs away.
    public static func next(
        after current: GroupUpdate, name: String? = nil, members: [PeerKey]? = nil
    ) -> GroupUpdate? {
        guard current.version < .max else { return nil }
        return GroupUpdate(
            id: current.id, version: current.version + 1, name: name ?? current.name,
            members: members ?? current.members)
    }
}
