/// One control API method: its JSON-RPC name (the CLI command name), its params and its
/// result. The client calls `client.call(Send.self, params)`; the daemon registers one handler
/// per descriptor. The name therefore exists once, here.
public protocol ControlMethod {
    associatedtype Params: Codable & Sendable
    associatedtype Result: Codable & Sendable
    static var name: String { get }
}

/// Params of a method that takes none. Decodes from `{}`, `null` or an absent `params`.
public struct NoParams: Codable, Sendable, Hashable {
    public init() {}

    /// `{}` (any members are ignored, as unknown fields are everywhere); a string, number or
    /// array is the wrong type of params (-32602), as lanchat-api(7) says.
    public init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
    }

    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: AnyKey.self)
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

public enum Methods {
    public enum Status: ControlMethod {
        public typealias Params = NoParams
        public typealias Result = StatusResult
        public static let name = "status"
    }

    public enum Who: ControlMethod {
        public typealias Params = WhoParams
        public typealias Result = WhoResult
        public static let name = "who"
    }

    public enum Send: ControlMethod {
        public typealias Params = SendParams
        public typealias Result = SendResult
        public static let name = "send"
    }

    public enum History: ControlMethod {
        public typealias Params = HistoryParams
        public typealias Result = HistoryResult
        public static let name = "history"
    }

    public enum SetPresence: ControlMethod {
        public typealias Params = PresenceParams
        public typealias Result = StatusResult
        public static let name = "presence"
    }

    public enum Retry: ControlMethod {
        public typealias Params = RetryParams
        public typealias Result = RetryResult
        public static let name = "retry"
    }

    public enum Backup: ControlMethod {
        public typealias Params = BackupParams
        public typealias Result = BackupResult
        public static let name = "backup"
    }

    public enum Inbox: ControlMethod {
        public typealias Params = InboxParams
        public typealias Result = InboxResult
        public static let name = "inbox"
    }

    public enum Read: ControlMethod {
        public typealias Params = ReadParams
        public typealias Result = ReadResult
        public static let name = "read"
    }

    public enum Archive: ControlMethod {
        public typealias Params = ArchiveParams
        public typealias Result = ArchiveResult
        public static let name = "archive"
    }

    public enum Unarchive: ControlMethod {
        public typealias Params = ArchiveParams
        public typealias Result = ArchiveResult
        public static let name = "unarchive"
    }

    public enum Search: ControlMethod {
        public typealias Params = SearchParams
        public typealias Result = SearchResult
        public static let name = "search"
    }

    /// Answers with `WatchResult`, then sends `event` notifications (`EventInfo`) until the
    /// client closes the connection, or ends with an error (`watchOverflow` carries the last
    /// cursor sent, so the client can resume from it).
    public enum Watch: ControlMethod {
        public typealias Params = WatchParams
        public typealias Result = WatchResult
        public static let name = "watch"
        /// The JSON-RPC method of the notifications.
        public static let notification = "event"
    }
}
