import Foundation
import Testing

/// Two daemons, alice and bob, that know each other as static peers (`--peer`), the setup
/// of the README and lanchatd(8).
struct DaemonPair {
    let alice: DaemonProcess
    let bob: DaemonProcess

    /// Starts bob on a free port dialling alice's port (reserved beforehand), then alice on
    /// that port dialling bob, and waits until each lists the other as online.
    static func start(
        in sandbox: Sandbox, aliceArguments: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> DaemonPair {
        let alicePort = try reserveFreePort()
        let bob = try await DaemonProcess.start(
            "bob", in: sandbox, peers: ["127.0.0.1:\(alicePort)"])
        let alice = try await DaemonProcess.start(
            "alice", in: sandbox, port: alicePort, peers: ["127.0.0.1:\(try bob.port)"],
            extraArguments: aliceArguments)
        let pair = DaemonPair(alice: alice, bob: bob)
        try await pair.awaitConnected(sourceLocation: sourceLocation)
        return pair
    }

    /// Waits until each lists the other as online (session up both ways).
    func awaitConnected(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try #require(
            try await alice.awaitOnline(bob.id),
            "alice never listed bob online\n\(alice.log)\n\(bob.log)",
            sourceLocation: sourceLocation)
        try #require(
            try await bob.awaitOnline(alice.id),
            "bob never listed alice online\n\(alice.log)\n\(bob.log)",
            sourceLocation: sourceLocation)
    }
}

/// bob listening and dialling no one, alice reaching bob only through a relay that records
/// every byte: the setup of the wire tests. Runs `body` once alice lists bob online, and
/// stops the relay when it returns.
func withRelayedPair(
    in sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (_ alice: DaemonProcess, _ bob: DaemonProcess, _ relay: RecordingRelay) async throws
        -> Void
) async throws {
    let bob = try await DaemonProcess.start("bob", in: sandbox)
    let relay = try RecordingRelay(forwardingTo: try bob.port)
    defer { relay.stop() }
    let alice = try await DaemonProcess.start(
        "alice", in: sandbox, peers: ["127.0.0.1:\(relay.port)"])
    try #require(
        try await alice.awaitOnline(bob.id), "\(alice.log)\n\(bob.log)",
        sourceLocation: sourceLocation)
    try await body(alice, bob, relay)
}

extension DaemonProcess {
    /// Sends `text` to `peer` with `lanchat send`, which must exit 0 and print one message
    /// id; returns the id.
    func send(
        _ text: String, to peer: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await lanchat(["send", peer, text])
        try #require(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        let id = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(id.isLowercaseUUID, "send printed \(result)", sourceLocation: sourceLocation)
        return id
    }

    /// Sends `text` to `peer` and requires it `delivered` within `timeout`; returns the
    /// sender's view of the message.
    @discardableResult
    func sendDelivered(
        _ text: String, to peer: String, timeout: Duration = .seconds(5),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> MessageObject {
        let id = try await send(text, to: peer, sourceLocation: sourceLocation)
        let delivered = try await awaitMessage(id, to: peer, status: "delivered", timeout: timeout)
        return try #require(
            delivered, "\(name)'s message \(id) to \(peer) never delivered\n\(log)",
            sourceLocation: sourceLocation)
    }

    /// Waits until this daemon's history with `peer` holds the incoming message `id`.
    func awaitReceived(_ id: String, from peer: String, timeout: Duration = .seconds(5))
        async throws -> MessageObject?
    {
        try await poll(timeout: timeout) {
            try await json(HistoryResult.self, ["history", peer]).messages.first {
                $0.id == id && $0.direction == "in"
            }
        }
    }
}
