internal import CAvahi

/// Why the Avahi backend could not start. Once running, it never throws: failures of
/// avahi-daemon become `.stateChanged` events and log lines, and the backend retries.
public struct AvahiDiscoveryError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        /// A libavahi call failed with this error code.
        case avahi(operation: String, code: Int32)
        /// A system call failed with this `errno`.
        case systemCall(String, Int32)
        /// `run()` was called a second time.
        case alreadyRun
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    /// A failed libavahi call, e.g. `AvahiDiscoveryError(calling: "avahi_threaded_poll_new",
    /// code: AVAHI_ERR_NO_MEMORY)`.
    init(calling operation: String, code: Int32) {
        self.init(.avahi(operation: operation, code: code))
    }

    public var description: String {
        switch code {
        case .avahi(let operation, let code):
            "\(operation) failed: \(AvahiErrorText.describe(code))"
        case .systemCall(let call, let error):
            "\(call) failed: errno \(error)"
        case .alreadyRun:
            "AvahiDiscovery.run() may only be called once"
        }
    }
}

/// `avahi_strerror` as a Swift string.
enum AvahiErrorText {
    static func describe(_ code: Int32) -> String {
        guard let text = avahi_strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
