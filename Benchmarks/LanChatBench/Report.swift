import Foundation

/// The results of one run, rendered three ways: a text table for the terminal, JSON for
/// tools, and a Markdown block that replaces the one between the markers in
/// `docs/benchmarks.md` (the prose around it is left alone).
struct Report {
    var figures: [Figure]
    let command: String
    let quick: Bool
    let date: Date
    let machineBefore: MachineFacts
    var machineAfter: MachineFacts
    let timingTool: String

    static let beginMarker =
        "<!-- bench:begin — written by `make bench`; edit outside the markers -->"
    static let endMarker = "<!-- bench:end -->"

    /// Figures of PRODUCT.md §8 this benchmark does not measure, and why.
    static let notMeasured: [Figure] = [
        Figure(
            key: "discovery_online_s", group: 0,
            title: "new node listed as online by the others (real Avahi)", value: nil, unit: "s",
            target: .atMost(1),
            note: "not measured here: needs real avahi-daemon (system test layer)"),
        Figure(
            key: "discovery_offline_s", group: 0, title: "clean stop seen as offline by the others",
            value: nil, unit: "s", target: .atMost(1),
            note: "not measured here: needs real avahi-daemon (system test layer)"),
        Figure(
            key: "nodes_on_lan", group: 0,
            title: "50 nodes on one LAN, all pairs connected, exactly once", value: nil,
            unit: "nodes", target: .atLeast(50), note: "not measured here (system test layer)"),
    ]

    var dateText: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    var runLine: String {
        """
        \(dateText), `\(command)`, release build\(quick ? ", **--quick (reduced sizes: not the real figures)**" : ""); \
        \(machineBefore.cores) cores, load average \(machineBefore.loadAverage) at the start and \
        \(machineAfter.loadAverage) at the end (the machine is shared); Linux \
        \(machineBefore.kernel); stores on \(machineBefore.fileSystem); CLI timing: \(timingTool); \
        everything on 127.0.0.1.
        """
    }

    // MARK: Text

    var text: String {
        let rows = (figures + Self.notMeasured).map { figure in
            [figure.title, figure.valueText, figure.targetText, plainVerdict(figure)]
        }
        let header = ["figure", "measured", "target", "meets"]
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { cell, width in
                cell + String(repeating: " ", count: max(0, width - cell.count))
            }.joined(separator: "  ")
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    private func plainVerdict(_ figure: Figure) -> String {
        switch figure.meets {
        case .some(true): "yes"
        case .some(false): "NO"
        case .none: ""
        }
    }

    // MARK: Markdown

    var markdown: String {
        var lines = [Self.beginMarker, "", runLine, ""]
        lines.append("| # | figure | measured | target | meets | how |")
        lines.append("|---|---|---|---|---|---|")
        for figure in figures + Self.notMeasured {
            let number = figure.group == 0 ? "" : String(figure.group)
            lines.append(
                "| \(number) | \(figure.title) | \(figure.valueText) | \(figure.targetText) | \(figure.verdictText) | \(figure.note) |"
            )
        }
        lines += ["", Self.endMarker]
        return lines.joined(separator: "\n")
    }

    /// Replaces the block between the markers of `path` (or appends one).
    func writeMarkdown(to path: String) throws {
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let updated: String
        if let begin = existing.range(of: Self.beginMarker),
            let end = existing.range(
                of: Self.endMarker, range: begin.upperBound..<existing.endIndex)
        {
            updated = existing.replacingCharacters(
                in: begin.lowerBound..<end.upperBound, with: markdown)
        } else {
            updated = existing + (existing.isEmpty ? "" : "\n") + markdown + "\n"
        }
        try updated.write(toFile: path, atomically: true, encoding: .utf8)
    }

    // MARK: JSON

    private struct Document: Encodable {
        struct Machine: Encodable {
            let cores: Int
            let loadAverageStart: String
            let loadAverageEnd: String
            let kernel: String
            let fileSystem: String
        }

        struct Entry: Encodable {
            let key: String
            let group: Int
            let title: String
            let value: Double?
            let unit: String
            let target: String?
            let meets: Bool?
            let note: String
            let details: [String: Double]
        }

        let date: String
        let command: String
        let build: String
        let quick: Bool
        let cliTiming: String
        let machine: Machine
        let figures: [Entry]
    }

    func json() throws -> Data {
        let document = Document(
            date: dateText, command: command, build: "release", quick: quick,
            cliTiming: timingTool,
            machine: .init(
                cores: machineBefore.cores, loadAverageStart: machineBefore.loadAverage,
                loadAverageEnd: machineAfter.loadAverage, kernel: machineBefore.kernel,
                fileSystem: machineBefore.fileSystem),
            figures: (figures + Self.notMeasured).map { figure in
                Document.Entry(
                    key: figure.key, group: figure.group,
                    title: figure.title.trimmingCharacters(in: .whitespaces), value: figure.value,
                    unit: figure.unit, target: figure.target?.text, meets: figure.meets,
                    note: figure.note, details: figure.details)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(document)
    }
}
