import LanChatControl

/// A left-aligned text table with a header row, columns separated by two spaces, trailing
/// spaces trimmed. Widths count terminal columns (a wide character two, `DisplayWidth`) and
/// ignore colour: cells are padded first and painted after. Given the terminal's width, the
/// columns marked `shrinkable` give up width, in their order, down to their minimum, and
/// their cells are cut with `…`; when that is not enough, the `droppable` columns are left
/// out, in their order; so that a row stays on one line of a narrow terminal.
package struct TextTable {
    package struct Cell {
        var text: String
        var paint: (String) -> String

        package init(_ text: String, paint: @escaping (String) -> String = { $0 }) {
            self.text = text
            self.paint = paint
        }
    }

    private let header: [String]
    private var rows: [[Cell]] = []
    private let shrinkable: [(column: Int, minimum: Int)]
    private let droppable: [Int]

    package init(
        header: [String], shrinkable: [(column: Int, minimum: Int)] = [], droppable: [Int] = []
    ) {
        self.header = header
        self.shrinkable = shrinkable
        self.droppable = droppable
    }

    package mutating func append(_ row: [Cell]) {
        rows.append(row)
    }

    /// `width`: the terminal's columns (nil for a pipe or a file: nothing is cut).
    package func render(style: TextStyle, width: Int? = nil) -> String {
        var widths = header.map { DisplayWidth.of($0) }
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], DisplayWidth.of(cell.text))
            }
        }
        var dropped: Set<Int> = []
        if let width { shrink(&widths, dropping: &dropped, toFit: width) }
        let headerCells = header.map { title in Cell(title, paint: style.bold) }
        return ([headerCells] + rows).map { cells in
            let kept = cells.indices.filter { !dropped.contains($0) && $0 < widths.count }
            return line(of: kept.map { cells[$0] }, widths: kept.map { widths[$0] })
        }.joined()
    }

    private func shrink(_ widths: inout [Int], dropping dropped: inout Set<Int>, toFit width: Int) {
        var excess = widths.reduce(2 * (widths.count - 1), +) - width
        for (column, minimum) in shrinkable where excess > 0 && column < widths.count {
            let given = min(excess, max(0, widths[column] - minimum))
            widths[column] -= given
            excess -= given
        }
        for column in droppable where excess > 0 && column < widths.count {
            dropped.insert(column)
            excess -= widths[column] + 2
        }
    }

    private func line(of cells: [Cell], widths: [Int]) -> String {
        var parts: [String] = []
        for (column, cell) in cells.enumerated() where column < widths.count {
            let isLast = column == min(cells.count, widths.count) - 1
            let text = truncated(cell.text, columns: widths[column])
            let padding =
                isLast
                ? "" : String(repeating: " ", count: max(0, widths[column] - DisplayWidth.of(text)))
            parts.append(cell.paint(text) + padding)
        }
        return parts.joined(separator: "  ") + "\n"
    }
}

/// Shortens text for a table cell: at most `limit` characters, `…` marking a cut, made
/// terminal-safe first (`terminalSafe`); the cut never splits an escape. `truncated(_:
/// columns:)` counts terminal columns instead.
package func truncated(_ text: String, to limit: Int) -> String {
    cut(TerminalText.pieces(text, keepingLayout: false), to: limit) { $0.count }
}

/// `truncated`, by terminal columns (a wide character takes two): at most `columns`.
package func truncated(_ text: String, columns: Int) -> String {
    cut(TerminalText.pieces(text, keepingLayout: false), to: columns) { DisplayWidth.of($0) }
}

/// Text already made terminal-safe (a row of the chat screen), cut to `columns` terminal
/// columns with `…` marking a cut; nothing in it is escaped again (message text keeps the
/// invisible characters a one-line field escapes).
package func fitted(_ text: String, columns: Int) -> String {
    cut(text.map(String.init), to: columns) { DisplayWidth.of($0) }
}

/// The pieces within `limit` as `measure` counts them, `…` (one) marking a cut; a cut never
/// splits a piece (an escape).
private func cut(_ pieces: [String], to limit: Int, measure: (String) -> Int) -> String {
    let widths = pieces.map(measure)
    guard widths.reduce(0, +) > limit, limit > 1 else { return pieces.joined() }
    var kept = ""
    var used = 0
    for (piece, width) in zip(pieces, widths) {
        guard used + width <= limit - 1 else { break }
        kept += piece
        used += width
    }
    return kept + "…"
}
