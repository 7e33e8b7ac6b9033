/// One session per peer key (PROTOCOL.md §3.9). When a second session with the same key is
/// authenticated, both sides must pick the same survivor without talking to each other.
public enum SessionArbitration {
    /// How long after its establishment a session counts as part of a simultaneous dial.
    public static let simultaneousDialWindow: Duration = .seconds(10)

    public enum Outcome: Equatable, Sendable {
        /// Keep the existing session; close the new one with CLOSE(DUPLICATE).
        case keepExisting
        /// Keep the new session; close the existing one with CLOSE(DUPLICATE).
        case replaceAsDuplicate
        /// Newest wins (a reconnect): the existing one gets CLOSE(REPLACED) once drained.
        case replaceAsReconnect
    }

    /// - Parameters:
    ///   - existingAge: time since the existing session was established.
    ///   - existingInitiator / newInitiator: the static key of the side that dialled each.
    public static func decide(
        existingAge: Duration, existingInitiator: PeerKey, newInitiator: PeerKey
    ) -> Outcome {
        guard existingAge < simultaneousDialWindow, existingInitiator != newInitiator else {
            return .replaceAsReconnect
        }
        return existingInitiator < newInitiator ? .keepExisting : .replaceAsDuplicate
    }
}
