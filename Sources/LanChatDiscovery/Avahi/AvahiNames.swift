internal import CAvahi

/// Pure libavahi helpers (no client, no daemon); `package` so tests can pin their behaviour.
package enum AvahiNames {
    /// `avahi_alternative_service_name`: "Alice" → "Alice #2" → "Alice #3". The name Avahi
    /// suggests after a collision, so every host renames the same way.
    package static func alternative(for name: String) -> String {
        guard let alternative = avahi_alternative_service_name(name) else { return name + " #2" }
        defer { avahi_free(alternative) }
        return String(cString: alternative)
    }

    /// Our TXT strings after a trip through `AvahiStringList` (what we hand to
    /// `avahi_entry_group_add_service_strlst`) and back, as a resolver would read them.
    package static func txtRoundTrip(_ strings: [String]) throws -> [[UInt8]] {
        let list = try StringList(strings)
        return StringList.strings(of: list.pointer)
    }
}
