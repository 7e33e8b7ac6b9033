/// A new `--interface` list while running (SIGHUP). Runs on Avahi's poll thread, from the
/// reconcile timer, where freeing and creating Avahi objects is safe.
extension AvahiEngine {
    /// Publishes on exactly the new set, reports `.lost` for what was seen only on interfaces
    /// no longer allowed, and has the browser report again what it already saw on newly
    /// allowed ones (results from those were dropped when they first came).
    func useInterfaces(_ newFilter: InterfaceFilter) {
        guard newFilter != filter else { return }
        let widened = newFilter.widens(filter)
        filter = newFilter
        logger.info("mDNS interfaces: \(Self.describe(newFilter))")
        for slot in resolveRequests.keys
        where !filter.allows(interfaceNamed: slot.instance.interface) {
            forget(slot)
        }
        if widened, browser != nil {
            // A new browser reports every cached service again; slots still tracked are
            // `.alreadyTracked`, so only the newly allowed ones get resolvers.
            browser = nil
            startBrowsing()
        }
        // Registering again resets the group (goodbye packets where the service is no longer
        // allowed) and adds it on the new set; also when it was not published because none
        // of the old interfaces existed. Without a running client this waits for one.
        publication.withdrawn()
        publishIfPossible()
    }

    private static func describe(_ filter: InterfaceFilter) -> String {
        filter.publishesEverywhere
            ? "every interface but loopback" : filter.allowedNames.sorted().joined(separator: ", ")
    }
}
