import Glibc

/// Random numbers for values that must be unique but are not secret (message ids), drawn
/// from the kernel 4 KiB at a time. The standard library's `SystemRandomNumberGenerator`
/// and glibc 2.36's `arc4random` both make one `getrandom` system call per draw, and a
/// `send` of 1 000 texts draws two per message: that was most of the time spent storing
/// them. Make one per batch of work; what it has not handed out is dropped with it.
public struct BatchRandom: RandomNumberGenerator {
    private var draws: [UInt64] = []
    private var nextIndex = 0
    /// How many numbers each refill draws.
    private let refillCount: Int

    /// `expectedDraws`: about how many numbers the work will take (two per message id), so
    /// that storing one message does not make the kernel generate 4 KiB for 16 bytes.
    public init(expectedDraws: Int = 512) {
        refillCount = min(512, max(2, expectedDraws))
    }

    public mutating func next() -> UInt64 {
        if nextIndex == draws.count { refill() }
        defer { nextIndex += 1 }
        return draws[nextIndex]
    }

    private mutating func refill() {
        draws = [UInt64](repeating: 0, count: refillCount)
        // arc4random_buf cannot fail: it retries getrandom until it has every byte.
        draws.withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { arc4random_buf(base, bytes.count) }
        }
        nextIndex = 0
    }
}
