/// An error of the control API, as the daemon answers it and the CLI reports it.
///
/// The kind is a private enum so callers cannot switch over it and forget a case; they use
/// the two mappings below, which are the only ones: `rpcCode` on the wire and `exitCode` at
/// the shell (sysexits, PRODUCT.md §4).
public struct ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable, CaseIterable {
        case parseError, invalidRequest, methodNotFound, invalidParams, internalError
        case badInput, peerNotFound, peerAmbiguous, timedOut, failed, storeUnavailable
        case permissionDenied, daemonNotRunning, unavailable, notAnswering
        case cursorTooOld, watchOverflow
    }

    private let kind: Kind
    public let message: String
    public let data: ControlErrorData?

    private init(_ kind: Kind, _ message: String, data: ControlErrorData? = nil) {
        self.kind = kind
        self.message = message
        self.data = data
    }

    public var description: String { message }

    // MARK: Constructors

    /// The request line is not JSON.
    public static func parseError(_ message: String) -> Self { .init(.parseError, message) }
    /// JSON, but not a JSON-RPC 2.0 request (or a line over 1 MiB).
    public static func invalidRequest(_ message: String) -> Self { .init(.invalidRequest, message) }
    public static func methodNotFound(_ method: String) -> Self {
        .init(.methodNotFound, "unknown method '\(method)'")
    }
    /// Params of the wrong shape or type; also CLI usage errors.
    public static func invalidParams(_ message: String) -> Self { .init(.invalidParams, message) }
    public static func internalError(_ message: String) -> Self { .init(.internalError, message) }
    /// Empty text, text over the limit, invalid UTF-8, a name too long (exit 65).
    public static func badInput(_ message: String) -> Self { .init(.badInput, message) }
    public static func peerNotFound(_ query: String, candidates: [PeerCandidate] = []) -> Self {
        .init(.peerNotFound, "no peer matches '\(query)'", data: .init(candidates: candidates))
    }
    /// A PEER that names this node itself (exit 67, like no match): no peer list comes with
    /// it, as none would help (found by QA: "no peer matches 'alice'" of our own name).
    public static func ownNode(_ query: String) -> Self {
        .init(
            .peerNotFound, "'\(query)' names this node itself, not a peer")
    }
    /// A PEER-or-GROUP argument (`send`, `history`, `read`, …) that names neither.
    public static func peerOrGroupNotFound(_ query: String, candidates: [PeerCandidate] = [])
        -> Self
    {
        .init(
            .peerNotFound, "no peer or group matches '\(query)'",
            data: .init(candidates: candidates))
    }
    public static func peerAmbiguous(_ query: String, candidates: [PeerCandidate]) -> Self {
        .init(
            .peerAmbiguous, "'\(query)' matches \(candidates.count) peers",
            data: .init(candidates: candidates))
    }
    /// A GROUP argument that matches no group (or several): like a PEER, exit 67.
    /// No peer list comes with it (`data` nil): `lanchat groups` is the list to look at.
    public static func groupNotFound(_ query: String) -> Self {
        .init(.peerNotFound, "no group matches '\(query)'; 'lanchat groups' lists them")
    }
    /// `names` each say what they are (`group #ops (id)`, `peer bob (KEY-TAG)`); `hint` how to
    /// name the one meant; `candidates`, the peers among them (in `data`, as a PEER's).
    public static func groupAmbiguous(
        _ query: String, names: [String], hint: String, candidates: [PeerCandidate] = []
    ) -> Self {
        .init(
            .peerAmbiguous,
            "'\(query)' matches \(names.count) groups or peers: \(names.joined(separator: ", ")); \(hint)",
            data: candidates.isEmpty ? nil : .init(candidates: candidates))
    }
    /// `send --wait` ran out of time; the messages stay queued (exit 75).
    public static func timedOut(_ message: String, messageIDs: [String]) -> Self {
        .init(.timedOut, message, data: .init(messageIDs: messageIDs))
    }
    /// The operation was refused: a message rejected, a verification mismatch (exit 1).
    public static func failed(_ message: String, messageIDs: [String]? = nil) -> Self {
        .init(.failed, message, data: messageIDs.map { .init(messageIDs: $0) })
    }
    /// The message store cannot be written (disk full, read-only); nothing was stored.
    public static func storeUnavailable(_ message: String) -> Self {
        .init(.storeUnavailable, message)
    }
    public static func permissionDenied(_ message: String) -> Self {
        .init(.permissionDenied, message)
    }
    /// Client side only: nothing listens on the control socket.
    public static func daemonNotRunning(_ message: String) -> Self {
        .init(.daemonNotRunning, message)
    }
    /// The daemon is up but cannot do this now (e.g. it is stopping).
    public static func unavailable(_ message: String) -> Self { .init(.unavailable, message) }
    /// Client side only: the daemon did not accept the connection or answer in time (it is
    /// overloaded or hung); exit 75 like other time-outs, with its own message.
    public static func notAnswering(_ message: String) -> Self { .init(.notAnswering, message) }

    /// `watch --since` with a cursor older than the event log keeps, or one that is not a
    /// cursor (exit 65). `data.cursor` is the oldest one kept.
    public static func cursorTooOld(_ message: String, oldest: String) -> Self {
        .init(.cursorTooOld, message, data: .init(cursor: oldest))
    }
    /// A `watch` consumer fell behind its bounded backlog: its stream ends here.
    /// `data.cursor` is the last event it was sent; resuming from it loses nothing (exit 75).
    public static func watchOverflow(_ message: String, lastCursor: String) -> Self {
        .init(.watchOverflow, message, data: .init(cursor: lastCursor))
    }

    // MARK: The two mappings

    public var rpcCode: Int {
        switch kind {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .methodNotFound: -32601
        case .invalidParams: -32602
        case .internalError: -32603
        case .badInput: -32001
        case .peerNotFound: -32002
        case .peerAmbiguous: -32003
        case .timedOut: -32004
        case .failed: -32005
        case .storeUnavailable: -32006
        case .permissionDenied: -32007
        case .daemonNotRunning: -32008
        case .unavailable: -32009
        case .notAnswering: -32010
        case .cursorTooOld: -32011
        case .watchOverflow: -32012
        }
    }

    /// sysexits(3) codes, PRODUCT.md §4.
    public var exitCode: Int32 {
        switch kind {
        case .failed: 1
        case .parseError, .invalidRequest, .methodNotFound, .invalidParams: 64
        case .badInput, .cursorTooOld: 65
        case .peerNotFound, .peerAmbiguous: 67
        case .daemonNotRunning, .unavailable: 69
        case .internalError: 70
        case .storeUnavailable: 74
        case .timedOut, .notAnswering, .watchOverflow: 75
        case .permissionDenied: 77
        }
    }

    /// Rebuilds an error received on the wire. An unknown code becomes `internalError` so a
    /// newer daemon never crashes an older CLI.
    public init(rpcCode: Int, message: String, data: ControlErrorData?) {
        let kind = Kind.allCases.first { ControlError($0, "").rpcCode == rpcCode }
        self.init(kind ?? .internalError, message, data: data)
    }

    public var isPeerLookupFailure: Bool { kind == .peerNotFound || kind == .peerAmbiguous }
    public var isPeerNotFound: Bool { kind == .peerNotFound }
    public var isTimeout: Bool { kind == .timedOut }
    /// The daemon did not answer: in time, or before the connection was lost (exit 75).
    public var isNotAnswering: Bool { kind == .notAnswering }
    /// The call's time limit ran out with the connection open: the daemon may be busy with
    /// it, not gone (`ControlError.noAnswerInTime` starts such a message).
    public var isNoAnswerInTime: Bool {
        kind == .notAnswering && message.hasPrefix(Self.noAnswerInTime)
    }
    public static let noAnswerInTime = "lanchatd did not answer within "
    public var isWatchOverflow: Bool { kind == .watchOverflow }
    /// The daemon is not there, stopping, or not answering: worth trying again later, as
    /// `lanchat watch` does across a daemon restart. Refusals and bad answers are not.
    public var isDaemonUnreachable: Bool {
        kind == .daemonNotRunning || kind == .unavailable || kind == .notAnswering
    }
    /// Nothing listens on the control socket: a request never reached a daemon, so nothing
    /// of it was done and sending it again cannot do it twice.
    public var isDaemonNotRunning: Bool { kind == .daemonNotRunning }
}

/// Structured detail of an error, for the CLI to render and scripts to read.
public struct ControlErrorData: Codable, Sendable, Hashable {
    /// For peer lookups: the peers that matched (ambiguous) or come closest (not found).
    public var candidates: [PeerCandidate]?
    /// For `send` errors after the messages were stored: their ids.
    public var messageIDs: [String]?
    /// For `watch` errors: the oldest cursor kept, or the last one sent.
    public var cursor: String?

    public init(
        candidates: [PeerCandidate]? = nil, messageIDs: [String]? = nil, cursor: String? = nil
    ) {
        self.candidates = candidates
        self.messageIDs = messageIDs
        self.cursor = cursor
    }
}

public struct PeerCandidate: Codable, Sendable, Hashable {
    public var id: String
    public var keyTag: String
    public var name: String
    public var alias: String?

    public init(id: String, keyTag: String, name: String, alias: String?) {
        self.id = id
        self.keyTag = keyTag
        self.name = name
        self.alias = alias
    }

    enum CodingKeys: String, CodingKey { case id, keyTag, name, alias }

    /// `alias` is written as `null` when unset, like every other shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(keyTag, forKey: .keyTag)
        try container.encode(name, forKey: .name)
        try container.encode(alias, forKey: .alias)
    }
}
