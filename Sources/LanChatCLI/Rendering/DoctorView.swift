/// Output of `lanchat doctor`: one line per check, `✓`, `✗` (with the fix) or `-` (skipped,
/// with why), then `All checks passed.` when none failed.
package enum DoctorView {
    package static func render(_ report: DoctorReport, style: TextStyle) -> String {
        let width = report.checks.map(\.name.count).max() ?? 0
        var text = ""
        for check in report.checks {
            let padded = check.name + String(repeating: " ", count: width - check.name.count)
            let detail = terminalSafe(check.detail)
            switch check.outcome {
            case .passed:
                text += "\(style.green("✓")) \(padded)  \(detail)\n"
            case .skipped:
                text += "\(style.dim("-")) \(padded)  \(style.dim(detail))\n"
            case .failed:
                let fix = check.fix.map { " — fix: " + style.bold(terminalSafe($0)) } ?? ""
                text += "\(style.red("✗")) \(style.bold(padded))  \(detail)\(fix)\n"
            }
        }
        // A failure's summary goes to standard error with the exit code (DoctorCommand).
        return report.ok ? text + "All checks passed.\n" : text
    }
}

/// `lanchat doctor --json`: `{"checks":[{"name","ok","detail","fix","skipped"}],"ok"}`.
/// `ok` is false only for a failed check; a skipped one is `ok` with `skipped: true`.
struct DoctorJSON: Encodable {
    struct Check: Encodable {
        var name: String
        var ok: Bool
        var skipped: Bool
        var detail: String
        var fix: String?

        enum CodingKeys: String, CodingKey { case name, ok, skipped, detail, fix }

        /// `fix` is written as `null` when there is none, like every optional in lanchat's JSON.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(ok, forKey: .ok)
            try container.encode(skipped, forKey: .skipped)
            try container.encode(detail, forKey: .detail)
            try container.encode(fix, forKey: .fix)
        }
    }

    var checks: [Check]
    var ok: Bool

    init(_ report: DoctorReport) {
        checks = report.checks.map {
            Check(
                name: $0.name, ok: !$0.isFailure, skipped: $0.outcome == .skipped,
                detail: $0.detail, fix: $0.fix)
        }
        ok = report.ok
    }
}
