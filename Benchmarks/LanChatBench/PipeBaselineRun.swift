import LanChatCore
import LanChatCrypto
import LanChatTransport

/// One run of figure 3: the same `count` 100-byte MSGs over a bare encrypted pipe between
/// two `Transport` endpoints on 127.0.0.1, with the daemon's flow rules: at most 256 MSGs
/// per write, at most 1 024 unacknowledged (`Limits`), cumulative ACKs after each run of at
/// most 256 received. No store, no control API, no HELLO: what the product could reach if
/// storing and the API cost nothing.
///
/// Timed from the first write to the ACK of the last MSG, on the benchmark's monotonic
/// clock. The MSGs (ids, stamps, texts) are built before the clock starts, as the daemon's
/// pump finds them ready in its outbox cache: the pipe measures carrying them, nothing else.
struct PipeBaselineRun {
    let texts: [String]

    func run() async throws -> Double {
        let receiverTransport = Transport(
            identity: try IdentityKeyPair.generate(), logger: benchLogger)
        let senderTransport = Transport(
            identity: try IdentityKeyPair.generate(), logger: benchLogger)
        let listener = try await receiverTransport.listen(host: "127.0.0.1", port: 0)
        let receiver = PipeReceiver()
        let sender = PipeSender()
        let listening = Task { try await listener.run(delegate: receiver) }
        let endpoint = Endpoint(host: "127.0.0.1", port: listener.port)
        let dialling = Task {
            await senderTransport.dial(endpoint, expectation: nil, delegate: sender)
        }
        var iterator = sender.sessions.makeAsyncIterator()
        guard let session = await iterator.next() else {
            listening.cancel()
            throw BenchError.failed("the baseline pipe did not connect: \(await dialling.value)")
        }
        let outcome: Result<Duration, any Error>
        do {
            outcome = .success(try await pump(on: session, window: sender.window))
        } catch {
            outcome = .failure(error)
        }
        await session.close(.normal)
        _ = await dialling.value
        await listener.close()
        listening.cancel()
        _ = try? await listening.value
        let elapsed = try outcome.get()
        if let violation = receiver.violation {
            throw BenchError.failed("baseline receiver saw a protocol error: \(violation)")
        }
        guard receiver.received == texts.count else {
            throw BenchError.failed(
                "baseline receiver got \(receiver.received) of \(texts.count) messages")
        }
        return Double(texts.count) / elapsed.seconds
    }

    /// Writes every MSG within the window and waits for the last ACK.
    private func pump(on session: SessionHandle, window: AckWindow) async throws -> Duration {
        let stream = UInt64.random(in: 1...UInt64.max)
        let sentAt = wallClockMilliseconds()
        let messages = texts.enumerated().map { index, text in
            AppMessage.message(
                WireMessage(
                    stream: stream, seq: UInt64(index + 1), id: MessageID.random(),
                    sentAt: sentAt, text: text))
        }
        let total = UInt64(texts.count)
        let maxInFlight = UInt64(Limits.maxInFlight)
        let start = ContinuousClock.now
        var next: UInt64 = 1
        while next <= total {
            if next > window.acknowledged + maxInFlight {
                guard await window.wait(until: next - maxInFlight) else {
                    throw BenchError.failed("the baseline session ended early")
                }
            }
            let last = min(
                total, next + UInt64(Limits.maxAckBatch) - 1,
                window.acknowledged + maxInFlight)
            try await session.send(Array(messages[Int(next - 1)..<Int(last)]))
            next = last + 1
        }
        guard await window.wait(until: total) else {
            throw BenchError.failed("the baseline session ended before the last ACK")
        }
        return start.duration(to: .now)
    }
}
