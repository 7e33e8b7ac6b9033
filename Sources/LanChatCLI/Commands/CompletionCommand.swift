import ArgumentParser
import LanChatClient
import LanChatControl

/// `lanchat completion bash|zsh|fish`: the completion script ArgumentParser generates from
/// the command tree, in which PEER arguments call `lanchat ---completion` (`.peers`), with
/// lanchat's additions (`CompletionScripts`).
struct CompletionCommand: ParsableCommand {
    enum Shell: String, CaseIterable, ExpressibleByArgument {
        case bash, zsh, fish

        var completionShell: CompletionShell {
            switch self {
            case .bash: .bash
            case .zsh: .zsh
            case .fish: .fish
            }
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            Commands, options and PEER arguments complete; peers come from the running \
            lanchatd (nothing when it is not running) and match whatever the case. Load it for the current shell with \
            source <(lanchat completion bash), or install it where the shell looks: make \
            install does, see lanchat(1), COMPLETION.
            """)

    @Argument(help: ArgumentHelp("The shell: bash, zsh or fish.", valueName: "shell"))
    var shell: Shell

    func run() throws {
        CLIEnvironment.current.output.standardOutput(
            CompletionScripts.script(for: shell.completionShell))
    }
}

/// The hidden `lanchat complete-peers`: the words a PEER argument completes with, one a line,
/// for a completion of one's own (the generated scripts get them through ArgumentParser's
/// `---completion`, which runs `CompletionKind.peers`). One `who --all` call with a short time
/// limit; when lanchatd is not running or does not answer it prints nothing and exits 0, so
/// completing never prints an error into the user's command line.
struct CompletePeersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "complete-peers",
        abstract: "Print the peers' names for shell completion, one a line.",
        shouldDisplay: false)

    /// A completing shell waits for this; a daemon that does not answer at once is skipped.
    static let timeout: Duration = .milliseconds(500)

    @OptionGroup var global: GlobalOptions

    func run() async {
        let words = PeerCompletion.fetch(socket: global.socket).map(\.word)
        if !words.isEmpty {
            CLIEnvironment.current.output.standardOutput(
                words.joined(separator: "\n") + "\n")
        }
    }
}

extension CompletionKind {
    /// A PEER (or GROUP) argument: the peers' and groups' words of the lanchatd that the
    /// command line being completed talks to, its `--socket` included (a fixed shell command
    /// could not see it). ArgumentParser runs this while parsing, synchronously.
    static var peers: CompletionKind { completing(.peersAndGroups) }

    /// A PEER or GROUP to write to (`send`, `chat`): not a group we left, which refuses it
    /// (found by QA: offered, then "you are not a member").
    static var sendTargets: CompletionKind { completing(.sendTargets) }

    /// A PEER that cannot be a group (a group's members).
    static var peersOnly: CompletionKind { completing(.peers) }

    /// `group add GROUP <Tab>`: the peers not in GROUP yet; `group remove GROUP <Tab>`: its
    /// members (found by QA: every peer was offered for both).
    static func groupChange(_ subcommand: String, members: Bool) -> CompletionKind {
        .custom { words, _, _ in
            PeerCompletion.fetchForGroupChange(
                socket: PeerCompletion.socket(in: words),
                group: PeerCompletion.groupWord(in: words, after: subcommand), members: members
            ).map { $0.line(for: CompletionShell.requesting) }
        }
    }

    /// A GROUP that cannot be a peer (`group add|remove|rename|leave`; found by QA to
    /// offer peers).
    static var groups: CompletionKind { completing(.groups) }

    private static func completing(_ kind: PeerCompletion.Kind) -> CompletionKind {
        .custom { words, _, _ in
            PeerCompletion.fetch(socket: PeerCompletion.socket(in: words), kind: kind)
                .map { $0.line(for: CompletionShell.requesting) }
        }
    }
}

/// The word that completes each peer: its alias, else its name, as PEER resolves them
/// (PRODUCT.md §4). A word the shells would split or misread (white space, quotes, `:` which
/// zsh takes for a description, other shell syntax), or one that two peers share, is replaced
/// by the peer's key tag, which always resolves to exactly that peer.
enum PeerCompletion {
    /// A word, and what zsh and fish show beside it: the name of the peer or group that a
    /// key tag or an id stands for (found by QA: a bare key tag says nothing).
    struct Candidate: Hashable {
        var word: String
        var description: String?

        /// How the shell's script reads it: `word:description` in zsh (`_describe`),
        /// `word<Tab>description` in fish; bash has no descriptions.
        func line(for shell: CompletionShell?) -> String {
            guard let description else { return word }
            switch shell {
            case .zsh?: return word + ":" + description
            case .fish?: return word + "\t" + description
            default: return word
            }
        }
    }

    /// What the daemon at `socket` (else the default socket) says for a completion: one
    /// `who --all`, then, when `withGroups`, one `groups`, each given
    /// `CompletePeersCommand.timeout`. Nil when lanchatd does not answer `who`; a daemon
    /// that cannot answer `groups` gives none.
    private static func ask(socket: String?, withGroups: Bool)
        -> (who: WhoResult, groups: [GroupInfo])?
    {
        let environment = CLIEnvironment.current
        let path = ControlSocketPath.resolve(
            explicit: socket, environment: environment.variables, uid: environment.uid)
        let timeout = CompletePeersCommand.timeout
        guard
            let who = BlockingCall.call(
                Methods.Who.self, WhoParams(all: true), socketPath: path, timeout: timeout)
        else { return nil }
        guard withGroups else { return (who, []) }
        let groups = BlockingCall.call(
            Methods.Groups.self, NoParams(), socketPath: path, timeout: timeout)
        return (who, groups?.groups ?? [])
    }

    /// The words for the daemon at `socket`; nothing when lanchatd does not answer.
    static func fetch(socket: String?, kind: Kind = .peersAndGroups) -> [Candidate] {
        guard let (who, groups) = ask(socket: socket, withGroups: kind != .peers) else {
            return []
        }
        if kind == .peers { return candidates(who.peers, keyChanges: who.keyChanges) }
        return candidates(who.peers, keyChanges: who.keyChanges, groups: groups, kind: kind)
    }

    /// The peers' words for `group add|remove GROUP`: those not in the group (`members`
    /// false) or in it; every peer when the group is not found.
    static func fetchForGroupChange(socket: String?, group word: String?, members: Bool)
        -> [Candidate]
    {
        guard let (who, groups) = ask(socket: socket, withGroups: true) else { return [] }
        return candidates(
            who.peers, keyChanges: who.keyChanges,
            only: word.flatMap { memberIDs(of: $0, in: groups) }.map { ids in
                Set(who.peers.map(\.id).filter { ids.contains($0) == members })
            })
    }

    /// The member ids of the group a GROUP word names (its id, name or #NAME, in any case).
    static func memberIDs(of word: String, in groups: [GroupInfo]) -> Set<String>? {
        let name = (word.hasPrefix("#") ? String(word.dropFirst()) : word).lowercased()
        let group = groups.first { $0.id == word || $0.name.lowercased() == name }
        return group.map { Set($0.members.map(\.id)) }
    }

    /// The GROUP word of `group SUBCOMMAND GROUP PEER…` on the command line being completed:
    /// the first word after the subcommand that is no option nor an option's value.
    static func groupWord(in words: [String], after subcommand: String) -> String? {
        guard let start = words.firstIndex(of: subcommand) else { return nil }
        var index = start + 1
        while index < words.count - 1 {
            let word = words[index]
            if word == "--socket" || word == "--color" {
                index += 2
            } else if word.hasPrefix("-") {
                index += 1
            } else {
                return word
            }
        }
        return nil
    }

    /// What an argument takes: either, or only one of the two; `sendTargets` is either
    /// without the groups we left.
    enum Kind { case peersAndGroups, sendTargets, peers, groups }

    /// The `--socket PATH` (or `--socket=PATH`) typed on the command line being completed.
    static func socket(in words: [String]) -> String? {
        var found: String?
        for (index, word) in words.enumerated() {
            if word == "--socket", index + 1 < words.count {
                found = words[index + 1]
            } else if word.hasPrefix("--socket=") {
                found = String(word.dropFirst("--socket=".count))
            }
        }
        return found.flatMap { $0.isEmpty ? nil : $0 }
    }

    static func words(_ peers: [PeerInfo], groups: [GroupInfo], kind: Kind = .peersAndGroups)
        -> [String]
    {
        candidates(peers, groups: groups, kind: kind).map(\.word)
    }

    static func words(_ peers: [PeerInfo], keyChanges: [KeyChangeInfo] = []) -> [String] {
        candidates(peers, keyChanges: keyChanges).map(\.word)
    }

    /// Peers' words, then each group's: its name where that is shell-safe and names no peer
    /// or other group (a name shared with a peer would be ambiguous, exit 67), else its id.
    static func candidates(
        _ peers: [PeerInfo], keyChanges: [KeyChangeInfo] = [], groups: [GroupInfo],
        kind: Kind = .peersAndGroups
    ) -> [Candidate] {
        // A group we left takes no change of ours (`group add|remove|rename|leave` refuse
        // it; found by QA offered); reading it, it stays on offer.
        let groups =
            kind == .groups || kind == .sendTargets ? groups.filter { $0.left != true } : groups
        // Where groups are named too, a peer's word that is a group's name names both
        // (found by QA: `bob` was offered beside #bob, and refused as ambiguous).
        let groupNames = kind == .peers ? [] : Set(groups.map { $0.name.lowercased() })
        let peersOwn = candidates(peers, keyChanges: keyChanges, groupNames: groupNames)
        var candidates = peersOwn
        let peerWords = Set(peers.flatMap { [$0.name, $0.alias ?? ""] }.map { $0.lowercased() })
        var counts: [String: Int] = [:]
        for group in groups { counts[group.name.lowercased(), default: 0] += 1 }
        for group in groups {
            let name = group.name
            let usable =
                isShellSafe(name) && counts[name.lowercased()] == 1
                && !peerWords.contains(name.lowercased()) && !IdentifierShape.isIdentifier(name)
            let chosen =
                usable
                ? Candidate(word: name) : Candidate(word: group.id, description: described(name))
            if !candidates.contains(where: { $0.word == chosen.word }) {
                candidates.append(chosen)
            }
        }
        switch kind {
        case .peers: return peersOwn
        case .groups: return Array(candidates.dropFirst(peersOwn.count))
        case .peersAndGroups, .sendTargets: return candidates
        }
    }

    /// Each peer's alias, else name, where lanchatd would resolve that word to it alone;
    /// else its key tag (found by QA: a name another peer has as well, in another case, was
    /// offered and then refused as ambiguous).
    /// `only`: the ids of the peers to offer (each word still chosen among them all).
    static func candidates(
        _ peers: [PeerInfo], keyChanges: [KeyChangeInfo] = [], groupNames: Set<String> = [],
        only: Set<String>? = nil
    ) -> [Candidate] {
        let claimants = Dictionary(
            grouping: keyChanges.compactMap { change in
                change.previous.map { (previous: $0.id, claimant: change.peer.id) }
            }, by: \.previous
        ).mapValues { $0.map(\.claimant) }
        var candidates: [Candidate] = []
        for peer in peers where only?.contains(peer.id) ?? true {
            let word = peer.alias ?? peer.name
            let usable =
                isShellSafe(word) && !groupNames.contains(word.lowercased())
                && resolvedIDs(word, among: peers, claimants: claimants) == [peer.id]
            let chosen =
                usable
                ? Candidate(word: word)
                : Candidate(word: peer.keyTag, description: described(word))
            if isShellSafe(chosen.word) && !candidates.contains(where: { $0.word == chosen.word }) {
                candidates.append(chosen)
            }
        }
        return candidates
    }

    /// The peers an exact alias or name resolves to, as lanchatd's PEER rules 3 and 4 do:
    /// the aliases first (case-insensitive), then the names; with them, the keys whose
    /// key-change warning claims one of them.
    private static func resolvedIDs(
        _ word: String, among peers: [PeerInfo], claimants: [String: [String]]
    ) -> Set<String> {
        let folded = word.lowercased()
        var matched = peers.filter { $0.alias?.lowercased() == folded }
        if matched.isEmpty { matched = peers.filter { $0.name.lowercased() == folded } }
        var ids = Set(matched.map(\.id))
        for id in ids { ids.formUnion(claimants[id] ?? []) }
        return ids
    }

    /// A name as a description: one line, its controls shown as escapes (another node
    /// chose it), never empty.
    private static func described(_ name: String) -> String? {
        let line = terminalSafe(name)
        return line.isEmpty ? nil : line
    }

    static func isShellSafe(_ word: String) -> Bool {
        !word.isEmpty && !word.hasPrefix("-")
            && word.unicodeScalars.allSatisfy { scalar in
                scalar.value > 0x20 && scalar.value != 0x7F
                    && !"\"'\\`$:;&|<>(){}[]*?!#~=,".unicodeScalars.contains(scalar)
                    && !(0x80...0x9F).contains(scalar.value)
                    && !scalar.properties.isWhitespace
            }
    }
}
