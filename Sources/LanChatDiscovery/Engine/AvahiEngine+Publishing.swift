internal import CAvahi
import LanChatCore

/// Publishing `_lanchat._tcp` through the entry group. Runs on Avahi's poll thread (reconcile
/// timer, entry group callback) or under the poll lock.
extension AvahiEngine {
    /// How many local name collisions (`AVAHI_ERR_COLLISION` from add) are resolved by
    /// renaming in one go before giving up until the next announce.
    private static let maxLocalRenames = 16

    /// Brings the entry group in line with the latest advertisement, if the daemon is running.
    func publishIfPossible() {
        guard condition == .running, let client else { return }
        for _ in 0..<Self.maxLocalRenames {
            switch publication.nextStep() {
            case .nothing:
                return
            case .register(let name, let advertisement):
                do {
                    try register(advertisement, as: name, client: client)
                    return
                } catch let error as AvahiDiscoveryError
                    where error.avahiCode == Int32(AVAHI_ERR_COLLISION)
                {
                    // Another client of this avahi-daemon holds the name.
                    rename(from: name)
                } catch {
                    logger.error("cannot publish \"\(name)\": \(error)")
                    withdraw()
                    retryPublishingLater()
                    return
                }
            case .updateTXT(let name, let advertisement):
                do {
                    try updateTXT(advertisement, as: name)
                    return
                } catch {
                    logger.warning(
                        "cannot update the TXT record of \"\(name)\" (\(error)); re-adding it")
                    withdraw()
                }
            }
        }
        logger.error("cannot find a free service name after \(Self.maxLocalRenames) tries")
    }

    private func register(_ advertisement: Advertisement, as name: String, client: ClientHandle)
        throws
    {
        let group =
            try self.group
            ?? EntryGroupHandle(
                client: client, context: context, callback: AvahiCallbacks.entryGroup)
        self.group = group
        try group.reset()
        publication.withdrawn()
        publishedInterfaces = []
        let interfaces = publishingInterfaces()
        guard !interfaces.isEmpty else {
            logger.warning(
                "none of the configured interfaces (\(filter.allowedNames.sorted().joined(separator: ", "))) exists; not publishing"
            )
            return
        }
        let txt = try StringList(TXTRecord.encode(advertisement))
        for interface in interfaces {
            try group.addService(
                interface: interface, name: name, type: configuration.serviceType,
                port: advertisement.port, txt: txt)
        }
        try group.commit()
        publishedInterfaces = interfaces
        publication.applied(advertisement)
        logger.debug("registering \"\(name)\" on port \(advertisement.port)")
    }

    private func updateTXT(_ advertisement: Advertisement, as name: String) throws {
        guard let group else {
            throw AvahiDiscoveryError(calling: "update", code: Int32(AVAHI_ERR_BAD_STATE))
        }
        let txt = try StringList(TXTRecord.encode(advertisement))
        for interface in publishedInterfaces {
            try group.updateTXT(
                interface: interface, name: name, type: configuration.serviceType, txt: txt)
        }
        publication.applied(advertisement)
        logger.debug("updated the TXT record of \"\(name)\"")
    }

    /// `AVAHI_IF_UNSPEC`, or the indices of the configured interfaces that exist now.
    private func publishingInterfaces() -> [Int32] {
        if filter.publishesEverywhere { return [Int32(AVAHI_IF_UNSPEC)] }
        return filter.allowedNames.sorted().compactMap { name in
            guard let interface = SystemInterfaces.interface(named: name) else {
                logger.warning("interface \(name) does not exist; not publishing on it")
                return nil
            }
            guard filter.allows(interface) else {
                logger.warning("interface \(name) is a loopback interface; not publishing on it")
                return nil
            }
            return interface.index
        }
    }

    /// Resets the entry group; the daemon withdraws the records and sends goodbye packets.
    func withdraw() {
        publication.withdrawn()
        guard let group else { return }
        do {
            try group.reset()
        } catch {
            logger.debug("cannot reset the entry group: \(error)")
        }
    }

    /// Entry group callback. A collision is handled on the next reconcile pass.
    func entryGroupDidChange(_ changed: OpaquePointer, state: AvahiEntryGroupState) {
        guard changed == group?.pointer else { return }
        let name = publication.serviceName ?? ""
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            publishRetryMilliseconds = Self.firstPublishRetryMilliseconds
            logger.info("published \"\(name)\" (\(configuration.serviceType))")
        case AVAHI_ENTRY_GROUP_COLLISION:
            pendingCollision = changed
            scheduleReconcile()
        case AVAHI_ENTRY_GROUP_FAILURE:
            let code = avahi_client_errno(avahi_entry_group_get_client(changed))
            logger.error("publishing \"\(name)\" failed: \(AvahiErrorText.describe(code))")
            publication.withdrawn()
            retryPublishingLater()
        default:
            break
        }
    }

    /// The network holds our name: pick Avahi's alternative and publish again.
    func renameAfterCollision() {
        guard let name = publication.serviceName else { return }
        rename(from: name)
        publishIfPossible()
    }

    private func rename(from name: String) {
        let alternative = AvahiNames.alternative(for: name)
        logger.warning("service name \"\(name)\" is taken; publishing as \"\(alternative)\"")
        publication.collided(renamedTo: alternative)
    }
}
