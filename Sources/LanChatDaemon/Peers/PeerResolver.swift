import Foundation
import LanChatControl
import LanChatCore
import LanChatCrypto

/// Resolves a PEER argument (PRODUCT.md §4), in order: the 52-character id; the key tag
/// `XXXX-XXXX`; an alias; a display name (case-insensitive); a unique case-insensitive prefix
/// of an alias or name. The first rule that matches anything decides: one match resolves,
/// several are ambiguous. Known offline peers resolve too.
///
/// A name the user knows is ambiguous while a new key claims it (PROTOCOL.md §3.8 row 7, a
/// pending key-change warning): the key whose warning names a matched peer matches with it,
/// whichever rule matched, so an alias (say, one a `verify --link` carried over) does not
/// quietly send to the earlier key once another key calls itself by that name.
enum PeerResolver {
    static func resolve(_ query: String, among entries: [PeerEntry]) throws(ControlError)
        -> PeerEntry
    {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidParams("the peer is empty") }
        let folded = trimmed.lowercased()
        // Parsed once, not per entry: every `send` resolves its peer.
        let key = PeerKey(id: trimmed)
        let rules: [(PeerEntry) -> Bool] = [
            { entry in key == entry.key },
            { entry in entry.record.keyTag.lowercased() == folded },
            { entry in entry.record.alias?.lowercased() == folded },
            { entry in entry.record.name.lowercased() == folded },
            { entry in
                (entry.record.alias?.lowercased().hasPrefix(folded) ?? false)
                    || entry.record.name.lowercased().hasPrefix(folded)
            },
        ]
        for (index, rule) in rules.enumerated() {
            var matches = entries.filter(rule)
            // The id and the key tag name one key, never a name someone else claims.
            if index >= 2 { matches += claimants(of: matches, among: entries) }
            if matches.count == 1, let match = matches.first { return match }
            if matches.count > 1 {
                throw .peerAmbiguous(
                    query, candidates: matches.sorted(by: byName).map(\.candidate))
            }
        }
        throw .peerNotFound(query, candidates: closest(to: folded, among: entries))
    }

    /// No rule matched: the peers whose name or alias comes closest (a typo, a word of a
    /// longer name), at most five, nearest first, as lanchat-api(7) promises in
    /// `data.candidates` (found by QA: always empty).
    static func closest(to folded: String, among entries: [PeerEntry]) -> [PeerCandidate] {
        guard folded.count >= 2 else { return [] }
        let allowed = max(1, folded.count / 4)
        // Accents aside too: `zoe` comes close to `Zoë Café` (found by QA: no suggestion).
        let query = Self.plain(folded)
        var scored: [(distance: Int, entry: PeerEntry)] = []
        for entry in entries {
            let words = [entry.record.name, entry.record.alias ?? ""].map(Self.plain)
                .filter { !$0.isEmpty }
            let distances = words.map { word in
                word.contains(query) ? 0 : EditDistance.between(query, word, atMost: allowed)
            }
            if let best = distances.compactMap({ $0 }).min(), best <= allowed {
                scored.append((best, entry))
            }
        }
        return scored.sorted {
            ($0.distance, $0.entry.displayName) < ($1.distance, $1.entry.displayName)
        }
        .prefix(5).map(\.entry.candidate)
    }

    /// A name as suggestions compare it: lower case, without accents.
    static func plain(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// Whether `query` names this node: its id, key tag or display name.
    static func namesOwnNode(_ query: String, key: PeerKey, name: String) -> Bool {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        return PeerKey(id: trimmed) == key
            || trimmed.lowercased() == Fingerprint.keyTag(key).lowercased()
            || (!name.isEmpty && trimmed.lowercased() == name.lowercased())
    }

    /// The keys whose pending key-change warning names one of `matches`, not already in it.
    private static func claimants(of matches: [PeerEntry], among entries: [PeerEntry])
        -> [PeerEntry]
    {
        guard !matches.isEmpty else { return [] }
        let matched = Set(matches.map(\.key))
        return entries.filter { entry in
            !matched.contains(entry.key)
                && entry.record.keyChangedFrom.map(matched.contains) == true
        }
    }

    /// A peer's id or key tag in shape: never a name, since a PEER argument of that shape
    /// names the key (an alias or a group name of that shape is refused).
    static func looksLikePeerIdentifier(_ text: String) -> Bool {
        PeerKey(id: text) != nil || IdentifierShape.isKeyTag(text)
    }

    /// `who QUERY`: a case-insensitive substring of name, alias, key tag, id, host name, or
    /// an address as the ADDRESS column shows it (`host:port`; found by QA: the column's text
    /// matched nothing).
    static func matches(_ entry: PeerEntry, query: String) -> Bool {
        let folded = query.lowercased()
        let fields =
            [
                entry.record.name, entry.record.alias ?? "", entry.record.keyTag, entry.key.id,
                entry.hostName ?? "",
            ] + (entry.announcedEndpoints + entry.record.addresses).map(\.description)
        return fields.contains { $0.lowercased().contains(folded) }
    }

    static func byName(_ lhs: PeerEntry, _ rhs: PeerEntry) -> Bool {
        (lhs.displayName.lowercased(), lhs.record.keyTag)
            < (rhs.displayName.lowercased(), rhs.record.keyTag)
    }
}
