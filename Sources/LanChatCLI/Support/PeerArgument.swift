import ArgumentParser

/// The one PEER argument of `block` and `unblock`, which act on a peer only: its help, its
/// shell completion (peers, no groups) and the check that it was valid UTF-8.
struct PeerArgument: ParsableArguments, CheckedPeerArgument {
    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peersOnly)
    var peer: String
}

/// The one PEER argument of the commands that take a group as well (`accept`, `archive`,
/// `unarchive`): completed with peers and groups.
struct PeerOrGroupArgument: ParsableArguments, CheckedPeerArgument {
    @Argument(
        help: ArgumentHelp(
            "The peer (see PEER in lanchat --help), or a group: #NAME, its name or id.",
            valueName: "peer"),
        completion: .peers)
    var peer: String
}

protocol CheckedPeerArgument {
    var peer: String { get }
}

extension CheckedPeerArgument {
    /// The argument, refused with exit 65 if the shell passed bytes that are not UTF-8.
    func checked() throws -> String {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        return peer
    }
}
