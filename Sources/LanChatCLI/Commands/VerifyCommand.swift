import ArgumentParser
import LanChatControl

/// `lanchat verify PEER [NUMBER]` → `verify`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Show the 60-digit safety number shared with PEER; given the number PEER's "
            + "side shows, compare it and mark PEER verified (exit 1 on a mismatch).")

    @OptionGroup var global: GlobalOptions

    @Argument(
        help: ArgumentHelp("The peer (see PEER in lanchat --help).", valueName: "peer"),
        completion: .peersOnly)
    var peer: String

    @Argument(
        parsing: .remaining,
        help: ArgumentHelp(
            "The other side's safety number: 60 digits, spaces allowed (quoted or not).",
            valueName: "number"))
    var number: [String] = []

    @Flag(
        help: ArgumentHelp(
            "PEER is a contact's new key (its key-change warning names the earlier one): move "
                + "the earlier key's conversation, alias and contact status to PEER, and send "
                + "PEER what was held for it. With NUMBER only if the numbers match (PEER is "
                + "then verified); without, PEER stays unverified."))
    var link = false

    func run() async throws {
        try CLIEnvironment.current.undecodableArguments.check([peer] + number, as: "PEER or NUMBER")
        let context = global.makeContext()
        let given = number.isEmpty ? nil : number.joined(separator: " ")
        let result = try await context.client.verify(
            VerifyParams(peer: peer, number: given, link: link ? true : nil))
        try context.show(result) { VerifyView.render($0, style: context.style) }
    }
}

/// Text output of `lanchat verify`.
package enum VerifyView {
    package static func render(_ result: VerifyResult, style: TextStyle) -> String {
        let label = ContactsView.label(result.peer)
        if let linked = result.linked {
            return linkedText(linked, result: result, style: style)
        }
        let tag = terminalSafe(result.peer.keyTag)
        // A key that took an earlier key's name can take that key over too (--link). The
        // names go on lines of their own: the fixed words stay within 80 columns.
        let link = result.canReplace.map { earlier in
            "It took the name of \(candidateLabel(earlier)).\n"
                + "If it is that peer's new key (a reinstall), --link moves that peer's\n"
                + "conversation and the messages held for it to \(tag):\n"
        }
        if result.verified {
            return style.green("The safety numbers match: \(label) is now verified.") + "\n"
                + (link.map { $0 + "  lanchat verify \(tag) --link\n" } ?? "")
        }
        return "Safety number with \(label):\n\n" + groups(result.safetyNumber) + "\n"
            + "\(label) sees the same 60 digits with 'lanchat verify' on its side.\n"
            + "Compare them in person or over a call you trust; if they match, mark it\n"
            + "verified with:\n"
            + "  lanchat verify \(tag) '<the number it shows>'\n"
            + (link.map { $0 + "  lanchat verify \(tag) '<the number it shows>' --link\n" } ?? "")
    }

    /// `bob (3EBM-VERF)`, or the key tag alone for a peer without a name.
    private static func candidateLabel(_ candidate: PeerCandidate) -> String {
        let name = candidate.alias ?? candidate.name
        let tag = terminalSafe(candidate.keyTag)
        return name.isEmpty ? tag : "\(truncated(name, to: 40)) (\(tag))"
    }

    private static func linkedText(
        _ linked: LinkedInfo, result: VerifyResult, style: TextStyle
    ) -> String {
        let label = ContactsView.label(result.peer)
        let previous = terminalSafe(linked.previous.keyTag)
        let messages = linked.messages == 1 ? "1 message" : "\(linked.messages) messages"
        var text =
            (result.verified
                ? style.green("The safety numbers match: \(label) is now verified.") + "\n"
                : "")
            + "\(label) now has the conversation of \(previous) (\(messages))"
        let released =
            linked.released == 1
            ? "the message held for it goes" : "the \(linked.released) messages held for it go"
        text += linked.released > 0 ? ", and \(released) out now.\n" : ".\n"
        for group in linked.groups {
            let name = terminalSafe(group.name)
            text +=
                "\(previous) is still a member of #\(name) (members are keys): to have the new key\n"
                + "there instead:\n  lanchat group add '#\(name)' \(terminalSafe(result.peer.keyTag))\n"
                + "  lanchat group remove '#\(name)' \(previous)\n"
        }
        if result.peer.trust != .verified {
            text +=
                style.yellow(
                    "\(label) is unverified: compare safety numbers with "
                        + "'lanchat verify \(terminalSafe(result.peer.keyTag))'.") + "\n"
        }
        return text
    }

    /// 12 groups of 5 digits in 3 rows (PROTOCOL.md §6).
    package static func groups(_ digits: String) -> String {
        let characters = Array(terminalSafe(digits))
        let groups = stride(from: 0, to: characters.count, by: 5).map {
            String(characters[$0..<min($0 + 5, characters.count)])
        }
        return stride(from: 0, to: groups.count, by: 4).map {
            "  " + groups[$0..<min($0 + 4, groups.count)].joined(separator: " ") + "\n"
        }.joined()
    }
}
