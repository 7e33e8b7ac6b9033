import ArgumentParser

/// The one PEER argument of the commands that act on a single peer (`block`, `unblock`,
/// `accept`, `archive`, `unarchive`): its help, its shell completion, and the check that it was
/// valid UTF-8 on the command line.
struct PeerArgument: ParsableArguments {
    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peers)
    var peer: String

    /// The argument, refused with exit 65 if the shell passed bytes that are not UTF-8.
    func checked() throws -> String {
        try CLIEnvironment.current.undecodableArguments.check([peer], as: "PEER")
        return peer
    }
}
