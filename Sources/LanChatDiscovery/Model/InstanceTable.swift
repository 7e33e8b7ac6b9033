import LanChatCore

/// The services the browser has reported, merged per instance, and the `.found`/`.lost` events
/// they produce. Pure; owned by the Avahi engine and used only on Avahi's poll thread.
///
/// Each instance (name on an interface) has one slot per address family, each backed by one
/// resolver. An instance is `.found` once a slot has resolved to a valid record, `.found`
/// again whenever its merged view changes, and `.lost` when its last resolved slot goes.
/// The table holds at most `capacity` instances so a flood of records cannot grow memory
/// without limit (PROTOCOL.md §7.3 item 46).
package struct InstanceTable: Sendable {
    package enum Admission: Hashable, Sendable {
        /// A new slot: create a resolver for it.
        case admitted
        /// The slot already has a resolver.
        case alreadyTracked
        /// The table is full; ignore the record.
        case full
    }

    package struct Outcome: Hashable, Sendable {
        package var events: [DiscoveryEvent] = []
        package var dropped: DroppedRecord?

        package init(events: [DiscoveryEvent] = [], dropped: DroppedRecord? = nil) {
            self.events = events
            self.dropped = dropped
        }
    }

    package let ownKey: PeerKey
    package let capacity: Int
    private var instances: [InstanceKey: TrackedInstance] = [:]
    /// Orders resolutions, so the newest TXT wins when the families disagree.
    private var nextSequence: UInt64 = 0

    package init(ownKey: PeerKey, capacity: Int) {
        self.ownKey = ownKey
        self.capacity = max(capacity, 1)
    }

    /// The number of tracked instances, resolved or not.
    package var count: Int { instances.count }

    /// The peer last reported for `instance`, if any.
    package func reportedPeer(_ instance: InstanceKey) -> DiscoveredPeer? {
        instances[instance]?.reported
    }

    /// Called when the browser reports a new (interface, family) result.
    package mutating func admit(_ slot: SlotKey) -> Admission {
        if var tracked = instances[slot.instance] {
            guard tracked.slots[slot.family] == nil else { return .alreadyTracked }
            tracked.slots[slot.family] = .pending
            instances[slot.instance] = tracked
            return .admitted
        }
        guard instances.count < capacity else { return .full }
        instances[slot.instance] = TrackedInstance(slots: [slot.family: .pending])
        return .admitted
    }

    /// Called for every resolver result of an admitted slot (again when TXT or address change).
    package mutating func resolve(_ slot: SlotKey, _ resolution: Resolution) -> Outcome {
        guard var tracked = instances[slot.instance], tracked.slots[slot.family] != nil else {
            return Outcome()
        }
        var dropped: DroppedRecord?
        switch TXTRecord.parse(resolution.txt) {
        case .failure(let rejection):
            dropped = .invalidTXT(rejection)
        case .success(let announcement) where announcement.key == ownKey:
            dropped = .ownKey
        case .success(let announcement):
            nextSequence += 1
            tracked.slots[slot.family] = .resolved(
                ResolvedSlot(
                    hostName: resolution.hostName,
                    endpoint: Endpoint(
                        resolvedAddress: resolution.address, port: resolution.port,
                        interface: slot.instance.interface),
                    announcement: announcement, sequence: nextSequence))
        }
        if dropped != nil { tracked.slots[slot.family] = .dropped }
        let events = publish(&tracked, for: slot.instance)
        instances[slot.instance] = tracked
        return Outcome(events: events, dropped: dropped)
    }

    /// Called when the browser removes a result.
    package mutating func remove(_ slot: SlotKey) -> [DiscoveryEvent] {
        guard var tracked = instances[slot.instance] else { return [] }
        tracked.slots[slot.family] = nil
        let events = publish(&tracked, for: slot.instance)
        instances[slot.instance] = tracked.slots.isEmpty ? nil : tracked
        return events
    }

    /// Called when a slot's resolver fails: the slot stays tracked (it is resolved again
    /// later) but no longer counts as resolved, so the instance is `.lost` if it was its
    /// last resolved slot.
    package mutating func unresolve(_ slot: SlotKey) -> [DiscoveryEvent] {
        guard var tracked = instances[slot.instance], tracked.slots[slot.family] != nil else {
            return []
        }
        tracked.slots[slot.family] = .pending
        let events = publish(&tracked, for: slot.instance)
        instances[slot.instance] = tracked
        return events
    }

    /// Forgets everything (the client was freed): `.lost` for every reported instance.
    package mutating func removeAll() -> [DiscoveryEvent] {
        let lost = instances.keys.sorted { ($0.name, $0.interface) < ($1.name, $1.interface) }
            .filter { instances[$0]?.reported != nil }
            .map { DiscoveryEvent.lost($0.serviceInstance) }
        instances = [:]
        return lost
    }

    /// Recomputes the merged peer and returns the event that tells the change, if any.
    private func publish(_ tracked: inout TrackedInstance, for key: InstanceKey) -> [DiscoveryEvent]
    {
        let merged = tracked.merged(as: key.serviceInstance)
        guard merged != tracked.reported else { return [] }
        tracked.reported = merged
        return [merged.map(DiscoveryEvent.found) ?? .lost(key.serviceInstance)]
    }
}

private enum SlotState: Hashable, Sendable {
    /// The resolver has not answered yet.
    case pending
    /// The resolver answered with a record we do not use (bad TXT, our own key).
    case dropped
    case resolved(ResolvedSlot)
}

private struct ResolvedSlot: Hashable, Sendable {
    var hostName: String
    var endpoint: Endpoint
    var announcement: PeerAnnouncement
    var sequence: UInt64
}

private struct TrackedInstance: Sendable {
    var slots: [AddressFamily: SlotState]
    /// What the last event said about this instance: nil when nothing (or `.lost`) was sent.
    var reported: DiscoveredPeer?

    init(slots: [AddressFamily: SlotState]) {
        self.slots = slots
    }

    /// One peer from every resolved slot: endpoints IPv4 first, host name and TXT from the
    /// newest resolution. Nil when no slot has resolved to a usable record.
    func merged(as instance: ServiceInstance) -> DiscoveredPeer? {
        let resolved = slots.compactMap { family, state -> (AddressFamily, ResolvedSlot)? in
            guard case .resolved(let slot) = state else { return nil }
            return (family, slot)
        }
        guard let newest = resolved.max(by: { $0.1.sequence < $1.1.sequence })?.1 else {
            return nil
        }
        let endpoints = resolved.sorted { $0.0 < $1.0 }.map(\.1.endpoint)
        return DiscoveredPeer(
            instance: instance, hostName: newest.hostName, endpoints: endpoints,
            announcement: newest.announcement)
    }
}
