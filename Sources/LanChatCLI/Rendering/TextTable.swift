import LanChatControl

/// A left-aligned text table with a header row, columns separated by two spaces, trailing
/// spaces trimmed. Widths count characters, not bytes, and ignore colour: cells are padded
/// first and painted after.
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

    package init(header: [String]) {
        self.header = header
    }

    package mutating func append(_ row: [Cell]) {
        rows.append(row)
    }

    package func render(style: TextStyle) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.text.count)
            }
        }
        let headerCells = header.map { title in Cell(title, paint: style.bold) }
        return ([headerCells] + rows).map { line(of: $0, widths: widths) }.joined()
    }

    private func line(of cells: [Cell], widths: [Int]) -> String {
        var parts: [String] = []
        for (column, cell) in cells.enumerated() where column < widths.count {
            let isLast = column == min(cells.count, widths.count) - 1
            let padding =
                isLast ? "" : String(repeating: " ", count: widths[column] - cell.text.count)
            parts.append(cell.paint(cell.text) + padding)
        }
        return parts.joined(separator: "  ") + "\n"
    }
}

/// Shortens text for a table cell: at most `limit` characters, `…` marking a cut, made
/// terminal-safe first (`terminalSafe`); the cut never splits an escape.
package func truncated(_ text: String, to limit: Int) -> String {
    let pieces = TerminalText.pieces(text, keepingLayout: false)
    let width = pieces.reduce(0) { $0 + $1.count }
    guard width > limit, limit > 1 else { return pieces.joined() }
    var kept = ""
    var keptWidth = 0
    for piece in pieces {
        guard keptWidth + piece.count <= limit - 1 else { break }
        kept += piece
        keptWidth += piece.count
    }
    return kept + "…"
}
