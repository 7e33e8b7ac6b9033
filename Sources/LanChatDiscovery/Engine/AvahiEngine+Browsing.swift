internal import CAvahi
import LanChatCore
import Logging

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
        guard client != nil, let name = result.name, let type = result.type,
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
        startResolving(
            slot,
            ResolveRequest(
                interface: result.interface, protocol: result.protocol, name: name, type: type,
                domain: domain))
    }

    /// Creates the resolver of an admitted slot (first time, or a retry).
    func startResolving(_ slot: SlotKey, _ request: ResolveRequest) {
        guard let client else { return }
        resolveRequests[slot] = request
        do {
            let resolver = try ServiceResolverHandle(
                client: client, interface: request.interface, protocol: request.protocol,
                name: request.name, type: request.type, domain: request.domain, context: context,
                callback: AvahiCallbacks.resolver)
            resolvers[slot] = resolver
            slotsByResolver[resolver.pointer] = slot
        } catch {
            // The D-Bus call to avahi-daemon can time out when it is busy: try again later.
            resolveAgainLater(slot, reason: "\(error)")
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
        resolveRetries.resolved(slot)
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

    /// Resolver callback, FAILURE (usually avahi-daemon's 5 s timeout, or the records went):
    /// the slot is unresolved (`.lost` if it was the instance's last resolved one) and is
    /// resolved again later. The browser would not report the service again on its own.
    func resolverFailed(_ resolver: OpaquePointer) {
        guard let slot = slotsByResolver[resolver] else { return }
        let reason = client.map { AvahiErrorText.describe($0.lastError) } ?? "no client"
        // Frees the resolver inside its own callback, as Avahi's examples do.
        resolvers[slot] = nil
        slotsByResolver[resolver] = nil
        emit(table.unresolve(slot))
        resolveAgainLater(slot, reason: reason)
    }

    /// Schedules another resolve of `slot` with backoff (`ResolveRetries`). The first
    /// failure of a slot is logged at info level: it is what a busy or lossy LAN looks like.
    func resolveAgainLater(_ slot: SlotKey, reason: String) {
        guard let request = resolveRequests[slot] else { return }
        let delay = resolveRetries.failed(slot, request: request, at: now())
        let message: Logger.Message =
            "cannot resolve \"\(slot.instance.name)\" on \(slot.instance.interface) (\(slot.family)): \(reason); trying again in \(delay.wholeMilliseconds) ms"
        if resolveRetries.failures(of: slot) == 1 {
            logger.info(message)
        } else {
            logger.debug(message)
        }
        armResolveRetryTimer()
    }

    /// Resolve-retry timer: resolves again every slot whose wait is over.
    func resolveRetryTimerFired() {
        for (slot, request) in resolveRetries.takeDue(at: now()) {
            startResolving(slot, request)
        }
        armResolveRetryTimer()
    }

    func armResolveRetryTimer() {
        guard let due = resolveRetries.nextDue else {
            resolveRetryTimer?.cancel()
            return
        }
        resolveRetryTimer?.schedule(afterMilliseconds: max((due - now()).wholeMilliseconds, 0))
    }

    func forget(_ slot: SlotKey) {
        if let resolver = resolvers.removeValue(forKey: slot) {
            slotsByResolver[resolver.pointer] = nil
        }
        resolveRequests[slot] = nil
        resolveRetries.cancel(slot)
        emit(table.remove(slot))
        if table.count < table.capacity { warnedTableFull = false }
    }
}

/// What creating a service resolver needs, kept so a failed resolve can be tried again.
struct ResolveRequest: Sendable {
    var interface: Int32
    var `protocol`: Int32
    var name: String
    var type: String
    var domain: String
}
