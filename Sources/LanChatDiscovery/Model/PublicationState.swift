import LanChatCore

/// What we want published and what the entry group holds, and the next step to bring them
/// together. Pure; owned by the Avahi engine and used only on Avahi's poll thread (or under
/// the poll lock).
///
/// Following avahi-common/defs.h: a TXT-only change is an in-place update
/// (`avahi_entry_group_update_service_txt_strlst`); a new name or port means reset and add
/// again; after a name collision the service is added again under the alternative name Avahi
/// suggests, and keeps that name until the advertisement's own name changes.
package struct PublicationState: Sendable {
    package enum Step: Hashable, Sendable {
        case nothing
        /// Reset the group if needed, add the service under `name`, commit.
        case register(name: String, advertisement: Advertisement)
        /// Replace the TXT strings of the service registered under `name`.
        case updateTXT(name: String, advertisement: Advertisement)
    }

    /// The latest advertisement from `announce`.
    package private(set) var desired: Advertisement?
    /// The name to register under: the advertisement's, or Avahi's alternative after collisions.
    package private(set) var serviceName: String?
    /// What the entry group holds, under `serviceName`; nil when it holds nothing.
    package private(set) var registered: Advertisement?

    package init() {}

    package mutating func announce(_ advertisement: Advertisement) {
        if desired?.instanceName != advertisement.instanceName {
            serviceName = advertisement.instanceName
        }
        desired = advertisement
    }

    package func nextStep() -> Step {
        guard let desired, let name = serviceName else { return .nothing }
        guard let registered,
            registered.instanceName == desired.instanceName, registered.port == desired.port
        else { return .register(name: name, advertisement: desired) }
        guard registered != desired else { return .nothing }
        return .updateTXT(name: name, advertisement: desired)
    }

    /// The step succeeded: the group now holds `advertisement`.
    package mutating func applied(_ advertisement: Advertisement) {
        registered = advertisement
    }

    /// The group was reset, failed or was freed with its client.
    package mutating func withdrawn() {
        registered = nil
    }

    /// Avahi reported a collision and withdrew the service; register under `alternative`.
    package mutating func collided(renamedTo alternative: String) {
        serviceName = alternative
        registered = nil
    }
}
