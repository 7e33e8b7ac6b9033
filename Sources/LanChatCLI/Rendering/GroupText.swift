import LanChatControl

/// How groups are named in text output, the same in every command.
package enum GroupText {
    /// `1 member`, `3 members`.
    package static func memberCount(_ count: Int) -> String {
        "\(count) member" + (count == 1 ? "" : "s")
    }

    /// A conversation as a sentence names it: `#team` for a group (as GROUP arguments
    /// write it), the peer's name and alias otherwise.
    package static func conversationLabel(_ conversation: ConversationInfo) -> String {
        if let group = conversation.group { return "#" + group.name }
        return InboxView.title(conversation)
    }
}
