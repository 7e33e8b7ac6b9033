import LanChatCore

/// GROUP frames from this peer (PROTOCOL.md §9.7).
extension PeerLink {
    func groupReceived(_ update: GroupUpdate) async {
        logger.debug("GROUP \(update.id) v\(update.version) received")
    }
}
