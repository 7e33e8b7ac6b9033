internal import CAvahi

/// Owners of libavahi-client objects. Each final class frees its object in `deinit`, and
/// every child (entry group, browser, resolver) keeps its client alive, so a client is never
/// freed before its children: `avahi_client_free` would free them too, and our later free
/// would be a double free.
///
/// All of them are created, used and released only on Avahi's poll thread or under the poll
/// lock (see `ThreadedPoll`). They are owned by `AvahiEngine`.

/// Owns an `AvahiClient`: the D-Bus connection to avahi-daemon.
final class ClientHandle {
    let pointer: OpaquePointer

    /// Creates a client that survives avahi-daemon's absence and restarts
    /// (`AVAHI_CLIENT_NO_FAIL`). The callback may run before this returns.
    static func connect(
        api: UnsafePointer<AvahiPoll>, context: UnsafeMutableRawPointer,
        callback: AvahiClientCallback
    ) -> Result<ClientHandle, AvahiDiscoveryError> {
        var error: Int32 = 0
        guard let pointer = avahi_client_new(api, AVAHI_CLIENT_NO_FAIL, callback, context, &error)
        else { return .failure(AvahiDiscoveryError(calling: "avahi_client_new", code: error)) }
        return .success(ClientHandle(pointer: pointer))
    }

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// The last error of this client (`avahi_client_errno`).
    var lastError: Int32 { avahi_client_errno(pointer) }

    func failure(calling operation: String) -> AvahiDiscoveryError {
        AvahiDiscoveryError(calling: operation, code: lastError)
    }

    deinit {
        avahi_client_free(pointer)
    }
}

/// Owns an `AvahiEntryGroup`: our published service. Freeing it withdraws the records, so
/// avahi-daemon sends goodbye packets and peers see us leave at once.
final class EntryGroupHandle {
    let pointer: OpaquePointer
    private let client: ClientHandle

    init(
        client: ClientHandle, context: UnsafeMutableRawPointer, callback: AvahiEntryGroupCallback
    ) throws {
        guard let pointer = avahi_entry_group_new(client.pointer, callback, context) else {
            throw client.failure(calling: "avahi_entry_group_new")
        }
        self.pointer = pointer
        self.client = client
    }

    var isEmpty: Bool { avahi_entry_group_is_empty(pointer) != 0 }

    func addService(
        interface: Int32, name: String, type: String, port: UInt16, txt: StringList
    ) throws {
        try check(
            avahi_entry_group_add_service_strlst(
                pointer, interface, Int32(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name, type,
                nil, nil, port, txt.pointer),
            "avahi_entry_group_add_service_strlst")
    }

    func updateTXT(interface: Int32, name: String, type: String, txt: StringList) throws {
        try check(
            avahi_entry_group_update_service_txt_strlst(
                pointer, interface, Int32(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name, type,
                nil, txt.pointer),
            "avahi_entry_group_update_service_txt_strlst")
    }

    func commit() throws {
        try check(avahi_entry_group_commit(pointer), "avahi_entry_group_commit")
    }

    /// Withdraws everything in the group; takes effect immediately.
    func reset() throws {
        try check(avahi_entry_group_reset(pointer), "avahi_entry_group_reset")
    }

    private func check(_ result: Int32, _ operation: String) throws {
        guard result >= 0 else { throw AvahiDiscoveryError(calling: operation, code: result) }
    }

    deinit {
        // Fails only when the daemon is already gone, and then there is nothing to withdraw.
        _ = avahi_entry_group_free(pointer)
    }
}

/// Owns an `AvahiServiceBrowser` for one service type on every interface and protocol.
final class ServiceBrowserHandle {
    let pointer: OpaquePointer
    private let client: ClientHandle

    init(
        client: ClientHandle, type: String, context: UnsafeMutableRawPointer,
        callback: AvahiServiceBrowserCallback
    ) throws {
        guard
            let pointer = avahi_service_browser_new(
                client.pointer, Int32(AVAHI_IF_UNSPEC), Int32(AVAHI_PROTO_UNSPEC), type, nil,
                AvahiLookupFlags(0), callback, context)
        else { throw client.failure(calling: "avahi_service_browser_new") }
        self.pointer = pointer
        self.client = client
    }

    deinit {
        _ = avahi_service_browser_free(pointer)  // Fails only when the daemon is gone.
    }
}

/// Owns an `AvahiServiceResolver` for one browse result. It stays open so Avahi reports TXT
/// and address changes as further FOUND events.
final class ServiceResolverHandle {
    let pointer: OpaquePointer
    private let client: ClientHandle

    init(
        client: ClientHandle, interface: Int32, protocol: Int32, name: String, type: String,
        domain: String, context: UnsafeMutableRawPointer, callback: AvahiServiceResolverCallback
    ) throws {
        // The address protocol is the query protocol: an IPv4 result resolves to an A record,
        // an IPv6 result to an AAAA record (lookup.h), so each family yields its own address.
        guard
            let pointer = avahi_service_resolver_new(
                client.pointer, interface, `protocol`, name, type, domain, `protocol`,
                AvahiLookupFlags(0), callback, context)
        else { throw client.failure(calling: "avahi_service_resolver_new") }
        self.pointer = pointer
        self.client = client
    }

    deinit {
        _ = avahi_service_resolver_free(pointer)  // Fails only when the daemon is gone.
    }
}

/// Owns an `AvahiStringList` built from Swift strings (our TXT record), in the given order.
final class StringList {
    private(set) var pointer: UnsafeMutablePointer<AvahiStringList>?

    init(_ strings: [String]) throws {
        // avahi_string_list_add prepends, so add in reverse to keep the order.
        for string in strings.reversed() {
            let bytes = Array(string.utf8)
            guard let extended = avahi_string_list_add_arbitrary(pointer, bytes, bytes.count) else {
                throw AvahiDiscoveryError(
                    calling: "avahi_string_list_add_arbitrary", code: Int32(AVAHI_ERR_NO_MEMORY))
            }
            pointer = extended
        }
    }

    /// The raw strings of a list Avahi handed to a callback (not owned, not retained).
    static func strings(of list: UnsafeMutablePointer<AvahiStringList>?) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var cursor = list
        while let entry = cursor {
            let size = avahi_string_list_get_size(entry)
            if let text = avahi_string_list_get_text(entry) {
                result.append(Array(UnsafeBufferPointer(start: text, count: size)))
            } else {
                result.append([])
            }
            cursor = avahi_string_list_get_next(entry)
        }
        return result
    }

    deinit {
        avahi_string_list_free(pointer)
    }
}
