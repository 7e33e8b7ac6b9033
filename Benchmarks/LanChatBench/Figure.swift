/// One line of the results table: a figure of PRODUCT.md §8 (with its target) or a context
/// measurement that helps read the others (no target).
struct Figure: Sendable {
    /// Stable name for the JSON, e.g. `send_delivered_p50_ms`.
    let key: String
    /// Which line of PRODUCT.md §8 it belongs to (1–9 as in docs/benchmarks.md; 0: context only).
    let group: Int
    let title: String
    /// nil: not measured (the `note` says why).
    let value: Double?
    let unit: String
    let target: Target?
    /// How it was measured (sizes, tool), or why it was not.
    let note: String
    /// Distributions and other numbers behind the value, for the JSON.
    var details: [String: Double] = [:]

    enum Target: Sendable {
        case atMost(Double)
        case atLeast(Double)

        func isMet(by value: Double) -> Bool {
            switch self {
            case .atMost(let limit): value <= limit
            case .atLeast(let limit): value >= limit
            }
        }

        var text: String {
            switch self {
            case .atMost(let limit): "≤ \(Figure.format(limit))"
            case .atLeast(let limit): "≥ \(Figure.format(limit))"
            }
        }
    }

    /// nil when there is no target or nothing was measured.
    var meets: Bool? {
        guard let target, let value, value.isFinite else { return nil }
        return target.isMet(by: value)
    }

    var valueText: String {
        guard let value else { return "not measured" }
        return Figure.format(value) + unitSuffix
    }

    var targetText: String { target.map { $0.text + unitSuffix } ?? "—" }

    private var unitSuffix: String { unit.isEmpty ? "" : " " + unit }

    var verdictText: String {
        switch meets {
        case .some(true): "yes"
        case .some(false): "**no**"
        case .none: value == nil && target != nil ? "—" : ""
        }
    }

    /// Three significant digits for small values, whole numbers grouped by threes for big
    /// ones: `0.412`, `3.07`, `48.2`, `61 250`.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        let magnitude = abs(value)
        if value == value.rounded() && magnitude < 1e15 && magnitude < 1_000 {
            return String(Int(value))
        }
        if magnitude >= 1_000 { return grouped(Int(value.rounded())) }
        if magnitude >= 100 { return String(Int(value.rounded())) }
        let decimals = magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3
        return fixed(value, decimals: decimals)
    }

    private static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        let whole = scaled / Int(scale)
        var fraction = String(scaled % Int(scale))
        while fraction.count < decimals { fraction = "0" + fraction }
        return (value < 0 ? "-" : "") + "\(whole)." + fraction
    }

    private static func grouped(_ value: Int) -> String {
        let digits = Array(String(abs(value)))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(" ") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}

extension Int {
    /// `100000` → `100 000`, for counts in titles and notes.
    var grouped: String { Figure.format(Double(self)) }
}
