import Foundation

/// Measured values of one kind (milliseconds, messages per second…) and their summary.
/// Percentiles use the nearest-rank method, so p99 of 1 000 samples is the 990th smallest:
/// a real observation, never an interpolation.
struct Samples: Sendable {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) {
        self.values = values
    }

    mutating func append(_ value: Double) { values.append(value) }

    var count: Int { values.count }
    var isEmpty: Bool { values.isEmpty }

    func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var median: Double { percentile(50) }
    var mean: Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
    var minimum: Double { values.min() ?? .nan }
    var maximum: Double { values.max() ?? .nan }

    /// p50, p90, p99, mean, min, max: what the JSON carries for a distribution.
    var summary: [String: Double] {
        [
            "count": Double(count), "p50": median, "p90": percentile(90), "p99": percentile(99),
            "mean": mean, "min": minimum, "max": maximum,
        ]
    }
}

extension Duration {
    /// This duration in milliseconds, with sub-millisecond precision.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    var seconds: Double { milliseconds / 1_000 }
}

/// Milliseconds since the epoch, the clock the daemon stamps `createdAt` and `deliveredAt`
/// with; used only to compare with those stamps.
func wallClockMilliseconds() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
}

/// Message texts of exactly `bytes` UTF-8 bytes, each different (its index is in it), so a
/// text is never mistaken for another and the store holds realistic unique rows.
enum Payload {
    static func text(_ index: Int, bytes: Int = 100) -> String {
        let head = "lanchat benchmark message \(index) "
        let missing = max(0, bytes - head.utf8.count)
        return head + String(filler.prefix(missing))
    }

    /// ASCII, so one character is one byte.
    private static let filler = String(
        repeating: "abcdefghijklmnopqrstuvwxyz0123456789", count: 8)

    /// `count` texts starting at `first`.
    static func texts(from first: Int, count: Int, bytes: Int = 100) -> [String] {
        (first..<(first + count)).map { text($0, bytes: bytes) }
    }
}
