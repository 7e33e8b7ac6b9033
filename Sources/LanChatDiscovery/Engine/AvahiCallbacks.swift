internal import CAvahi

/// The C entry points libavahi calls. Each recovers the engine from its context pointer and
/// forwards; the pointer stays valid because `AvahiRuntime` holds a retained reference to the
/// engine until every Avahi object is freed and the poll thread has stopped.
///
/// All of these run on Avahi's poll thread with the poll lock held, and must not block.
enum AvahiCallbacks {
    static func context(for engine: AvahiEngine) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(engine).toOpaque()
    }

    private static func engine(_ context: UnsafeMutableRawPointer?) -> AvahiEngine? {
        context.map { Unmanaged<AvahiEngine>.fromOpaque($0).takeUnretainedValue() }
    }

    static let client: AvahiClientCallback = { client, state, context in
        guard let client, let engine = engine(context) else { return }
        engine.clientDidChange(state: state, error: avahi_client_errno(client))
    }

    static let entryGroup: AvahiEntryGroupCallback = { group, state, context in
        guard let group, let engine = engine(context) else { return }
        engine.entryGroupDidChange(group, state: state)
    }

    static let browser: AvahiServiceBrowserCallback = {
        browser, interface, `protocol`, event, name, type, domain, _, context in
        guard let browser, let engine = engine(context) else { return }
        let result = BrowseResult(
            interface: interface, protocol: `protocol`,
            name: name.map { String(cString: $0) }, type: type.map { String(cString: $0) },
            domain: domain.map { String(cString: $0) })
        engine.browser(browser, reported: event, result)
    }

    static let resolver: AvahiServiceResolverCallback = {
        resolver, _, _, event, _, _, _, hostName, address, port, txt, _, context in
        guard let resolver, let engine = engine(context) else { return }
        guard event == AVAHI_RESOLVER_FOUND else {
            engine.resolverFailed(resolver)
            return
        }
        guard let address else { return }
        let resolution = Resolution(
            hostName: hostName.map { String(cString: $0) } ?? "",
            address: AvahiAddressText.describe(address), port: port,
            txt: StringList.strings(of: txt))
        engine.resolver(resolver, found: resolution)
    }

    static let reconcileTimer: AvahiTimeoutCallback = { _, context in
        engine(context)?.reconcile()
    }

    static let reconnectTimer: AvahiTimeoutCallback = { _, context in
        engine(context)?.reconnectTimerFired()
    }

    static let resolveRetryTimer: AvahiTimeoutCallback = { _, context in
        engine(context)?.resolveRetryTimerFired()
    }

    static let mailbox: AvahiWatchCallback = { _, _, _, context in
        engine(context)?.announcementArrived()
    }
}

/// A browser callback's arguments, copied out of C.
struct BrowseResult {
    var interface: Int32
    var `protocol`: Int32
    var name: String?
    var type: String?
    var domain: String?
}

/// `avahi_address_snprint` as a Swift string.
enum AvahiAddressText {
    static func describe(_ address: UnsafePointer<AvahiAddress>) -> String {
        var buffer = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        guard avahi_address_snprint(&buffer, buffer.count, address) != nil else { return "" }
        return String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension AddressFamily {
    /// Nil for `AVAHI_PROTO_UNSPEC` or anything unknown.
    init?(avahiProtocol: Int32) {
        switch avahiProtocol {
        case Int32(AVAHI_PROTO_INET): self = .ipv4
        case Int32(AVAHI_PROTO_INET6): self = .ipv6
        default: return nil
        }
    }
}
