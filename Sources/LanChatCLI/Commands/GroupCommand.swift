import ArgumentParser
import LanChatClient
import LanChatControl

/// `lanchat group create|add|remove|rename|leave` → `group.*` (PRODUCT.md §4). Each prints
/// the group as it now is; `create` prints its id first.
struct GroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "Create a group or change its members or name; every member learns it.",
        subcommands: [Create.self, Add.self, Remove.self, Rename.self, Leave.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create group NAME with the given peers (you are a member); prints its id.")
        @OptionGroup var global: GlobalOptions
        // Nothing to offer for a new name; without a completion of its own, the generated
        // scripts offered the members' peers for it (found by QA).
        @Argument(help: "The group's name (at most 64 bytes).", completion: .list([]))
        var name: String
        @Argument(
            help: ArgumentHelp(
                "The other members (see PEER in lanchat --help).", valueName: "peer"),
            completion: .peersOnly)
        var peers: [String]

        func run() async throws {
            try CLIEnvironment.current.undecodableArguments.check([name], as: "NAME")
            try CLIEnvironment.current.undecodableArguments.check(peers, as: "PEER")
            let context = global.makeContext()
            let result = try await context.client.groupCreate(
                GroupCreateParams(name: name, peers: peers))
            try context.show(result) { "\($0.group.id)\n" }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add peers to GROUP.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group: its id, name, or #NAME.", completion: .groups)
        var group: String
        @Argument(
            help: ArgumentHelp("The peers to add.", valueName: "peer"),
            completion: .groupChange("add", members: false))
        var peers: [String]

        func run() async throws {
            try await GroupCommand.changeMembers(global, group, peers) {
                client, params throws(ControlError) in
                try await client.groupAdd(params)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove peers from GROUP; they receive nothing sent after this.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group: its id, name, or #NAME.", completion: .groups)
        var group: String
        @Argument(
            help: ArgumentHelp("The peers to remove.", valueName: "peer"),
            completion: .groupChange("remove", members: true))
        var peers: [String]

        func run() async throws {
            try await GroupCommand.changeMembers(global, group, peers) {
                client, params throws(ControlError) in
                try await client.groupRemove(params)
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename GROUP.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group: its id, name, or #NAME.", completion: .groups)
        var group: String
        @Argument(help: "The new name (at most 64 bytes).") var name: String

        func run() async throws {
            try CLIEnvironment.current.undecodableArguments.check([group], as: "GROUP")
            try CLIEnvironment.current.undecodableArguments.check([name], as: "NAME")
            let context = global.makeContext()
            let result = try await context.client.groupRename(
                GroupRenameParams(group: group, name: name))
            try context.show(result) { GroupsView.render([$0.group], style: context.style) }
        }
    }

    struct Leave: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave GROUP.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The group: its id, name, or #NAME.", completion: .groups)
        var group: String

        func run() async throws {
            try CLIEnvironment.current.undecodableArguments.check([group], as: "GROUP")
            let context = global.makeContext()
            let result = try await context.client.groupLeave(GroupParams(group: group))
            try context.show(result) { "You left \(terminalSafe($0.group.name)).\n" }
        }
    }
}

/// `lanchat groups` → `groups`.
struct GroupsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groups", abstract: "Groups with their members and each one's presence.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = global.makeContext()
        let result = try await context.client.groups()
        try context.show(result) { GroupsView.render($0.groups, style: context.style) }
    }
}

/// Text for `groups` and the group commands: the name and id, then each member with its
/// presence (`online, away`), name and alias as `who` shows them, and key tag.
enum GroupsView {
    static func render(_ groups: [GroupInfo], style: TextStyle = .plain) -> String {
        guard !groups.isEmpty else {
            return "No groups. Start one with: lanchat group create NAME PEER…\n"
        }
        var out = ""
        for group in groups {
            out +=
                "#\(terminalSafe(group.name))  \(group.id)  "
                + "(\(GroupText.memberCount(group.members.count)))"
            if group.request == true { out += "  request: lanchat accept \(group.id)" }
            if group.left == true { out += "  (you are no longer a member)" }
            out += "\n"
            for member in group.members {
                let name = terminalSafe(PeerText.nameWithAlias(member))
                let (presence, paint) = PeerText.presence(member, style: style)
                // A member never met has no name yet: its key tag alone.
                let named = name.isEmpty ? "" : name + "  "
                out += "  \(paint(presence))  \(named)\(terminalSafe(member.keyTag))\n"
            }
        }
        return out
    }
}

extension GroupCommand {
    /// `group add` and `group remove`: the same checks and output around one method.
    static func changeMembers(
        _ global: GlobalOptions, _ group: String, _ peers: [String],
        _ call: (ControlClient, GroupMembersParams) async throws(ControlError) -> GroupResult
    ) async throws {
        try CLIEnvironment.current.undecodableArguments.check([group], as: "GROUP")
        try CLIEnvironment.current.undecodableArguments.check(peers, as: "PEER")
        let context = global.makeContext()
        let result = try await call(
            context.client, GroupMembersParams(group: group, peers: peers))
        try context.show(result) { GroupsView.render([$0.group], style: context.style) }
    }
}
