/// The identity decision of PROTOCOL.md §3.8, as a pure function. The initiator asks it
/// after msg2 and before msg3 (so an impostor never learns who is dialling); the responder
/// after msg3. TOFU pinning of an accepted new key happens when the session is established.
public struct IdentityPolicy: Sendable {
    public let ownKey: PeerKey

    public init(ownKey: PeerKey) {
        self.ownKey = ownKey
    }

    /// Which key the dialler expects, and why.
    public enum Expectation: Equatable, Sendable {
        /// Dialling a pinned contact (or a `--peer ID@HOST:PORT`): a different key is a HIGH
        /// warning and the address is marked bad for this contact (row 4).
        case pinned(PeerKey)
        /// Dialling a service whose TXT record announced this key (row 5).
        case announced(PeerKey)
    }

    public enum Rejection: Equatable, Sendable, Error {
        /// Row 1: the remote proved our own key (reflection or self-dial). Debug log.
        case ownKey
        /// Row 2: the key is blocked. Counter only.
        case blocked
        /// Row 4: a pinned contact's address presented another key.
        case pinnedKeyMismatch(expected: PeerKey, presented: PeerKey)
        /// Row 5: a discovery record did not match the device (spoofed or stale).
        case announcedKeyMismatch(expected: PeerKey, presented: PeerKey)
        /// §3.8's "rate limits on 'new peer' prompts and per-IP throttling": one more key
        /// never met, from an address that brought too many lately (decided by the daemon).
        case tooManyNewKeys
    }

    public func decide(remote: PeerKey, expectation: Expectation?, isBlocked: Bool)
        -> Result<Void, Rejection>
    {
        if remote == ownKey { return .failure(.ownKey) }
        if isBlocked { return .failure(.blocked) }
        switch expectation {
        case .pinned(let expected) where expected != remote:
            return .failure(.pinnedKeyMismatch(expected: expected, presented: remote))
        case .announced(let expected) where expected != remote:
            return .failure(.announcedKeyMismatch(expected: expected, presented: remote))
        default:
            return .success(())
        }
    }
}
