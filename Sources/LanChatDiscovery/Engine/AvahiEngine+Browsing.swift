internal import CAvahi
import LanChatCore

/// Browsing and resolving `_lanchat._tcp`. Runs on Avahi's poll thread (browser and resolver
/// callbacks, reconcile timer).
extension AvahiEngine {
    /// Creates the browser (all interfaces, IPv4 and IPv6) if there is none.
    func startBrowsing() {
        guard browser == nil, let client else { return }
        do {
            browser = try ServiceBrowserHandle(
                client: client, type: configuration.serviceType, context: context,
                callback: AvahiCallbacks.browser)
        } catch {
            // Treated like a client failure, on the next reconcile pass.
            pendingBrowserFailure = (ObjectIdentifier(client), "\(error)")
            scheduleReconcile()
        }
    }

    /// Browser callback.
    func browser(
        _ reporter: OpaquePointer, reported event: AvahiBrowserEvent, _ result: BrowseResult
    ) {
        guard let browser, browser.pointer == reporter else { return }
        switch event {
        case AVAHI_BROWSER_NEW:
            serviceAppeared(result)
        case AVAHI_BROWSER_REMOVE:
            serviceDisappeared(result)
        case AVAHI_BROWSER_FAILURE:
            guard let client else { return }
            let reason = "browsing failed: \(AvahiErrorText.describe(client.lastError))"
            pendingBrowserFailure = (ObjectIdentifier(client), reason)
            scheduleReconcile()
        default:
            break  // CACHE_EXHAUSTED, ALL_FOR_NOW: nothing to do.
        }
    }

    private func serviceAppeared(_ result: BrowseResult) {
        guard let client, let name = result.name, let type = result.type,
            let domain = result.domain, let family = AddressFamily(avahiProtocol: result.protocol)
        else { return }
        guard let interface = SystemInterfaces.interface(index: result.interface) else {
            logger.debug("ignoring \"\(name)\": interface \(result.interface) is gone")
            return
        }
        guard filter.allows(interface) else {
            logger.trace("ignoring \"\(name)\" on \(interface.name): interface not used")
            return
        }
        interfaceNames[interface.index] = interface.name
        let slot = SlotKey(
            instance: InstanceKey(name: name, interface: interface.name), family: family)
        switch table.admit(slot) {
        case .alreadyTracked:
            return
        case .full:
            if !warnedTableFull {
                warnedTableFull = true
                logger.warning(
                    "tracking the maximum of \(table.capacity) mDNS services; ignoring new ones")
            }
            return
        case .admitted:
            break
        }
        do {
            let resolver = try ServiceResolverHandle(
                client: client, interface: result.interface, protocol: result.protocol,
                name: name, type: type, domain: domain, context: context,
                callback: AvahiCallbacks.resolver)
            resolvers[slot] = resolver
            slotsByResolver[resolver.pointer] = slot
        } catch {
            logger.debug("cannot resolve \"\(name)\" on \(interface.name): \(error)")
            emit(table.remove(slot))
        }
    }

    private func serviceDisappeared(_ result: BrowseResult) {
        guard let name = result.name, let family = AddressFamily(avahiProtocol: result.protocol),
            let interfaceName = interfaceNames[result.interface]
        else { return }
        let slot = SlotKey(
            instance: InstanceKey(name: name, interface: interfaceName), family: family)
        forget(slot)
    }

    /// Resolver callback, FOUND: the first answer or a change of address, port or TXT.
    func resolver(_ resolver: OpaquePointer, found resolution: Resolution) {
        guard let slot = slotsByResolver[resolver] else { return }
        let outcome = table.resolve(slot, resolution)
        switch outcome.dropped {
        case .invalidTXT(let rejection):
            logger.debug(
                "ignoring \"\(slot.instance.name)\" on \(slot.instance.interface): bad TXT record: \(rejection)"
            )
        case .ownKey:
            logger.debug(
                "ignoring \"\(slot.instance.name)\" on \(slot.instance.interface): it carries our own id"
            )
        case nil:
            break
        }
        emit(outcome.events)
    }

    /// Resolver callback, FAILURE (usually a timeout): drop the slot; the browser reports the
    /// service again if it comes back.
    func resolverFailed(_ resolver: OpaquePointer) {
        guard let slot = slotsByResolver[resolver] else { return }
        let reason = client.map { AvahiErrorText.describe($0.lastError) } ?? "no client"
        logger.debug(
            "cannot resolve \"\(slot.instance.name)\" on \(slot.instance.interface): \(reason)")
        forget(slot)  // Frees the resolver inside its own callback, as Avahi's examples do.
    }

    func forget(_ slot: SlotKey) {
        if let resolver = resolvers.removeValue(forKey: slot) {
            slotsByResolver[resolver.pointer] = nil
        }
        emit(table.remove(slot))
        if table.count < table.capacity { warnedTableFull = false }
    }
}
