/// The input line of `lanchat chat`: the text being written, the cursor in it, and the own
/// lines sent this session (Up/Down go through them, like a shell's history). Pure: keys
/// in, an action out; the terminal driver and the session do the rest.
package struct LineEditor: Equatable {
    package private(set) var text: [Character] = []
    package private(set) var cursor = 0
    /// Own sent lines, oldest first.
    package private(set) var sent: [String] = []
    /// While browsing `sent` with Up/Down: the index shown, and the line being written
    /// before browsing began (Down past the newest brings it back).
    private var browsing: Int?
    private var draft: [Character] = []

    package enum Action: Equatable {
        case none
        /// The line changed (for typing notifications).
        case edited
        case submit(String)
        case quit
        /// Ctrl-L: draw everything again.
        case redraw
    }

    package init() {}

    package var line: String { String(text) }

    /// Puts back a line that was submitted but not sent, when nothing new is being written:
    /// Enter sends it again. A line already being written is kept (the unsent one is in the
    /// Up history).
    package mutating func restore(_ line: String) {
        guard text.isEmpty else { return }
        text = Array(line)
        cursor = text.count
        browsing = nil
    }

    package mutating func apply(_ key: ChatKey) -> Action {
        switch key {
        case .character(let character):
            insert(character)
            return edited()
        case .enter:
            var typed = String(text)
            let trimmed = typed.trimmingWhitespace
            guard !trimmed.isEmpty else { return .none }
            // A command is known around white space; a message goes as typed but for the
            // line ends a paste ends with, as `send` takes standard input (found by QA: the
            // indentation of pasted code was lost).
            while typed.last == "\n" || typed.last == "\r\n" || typed.last == "\r" {
                typed.removeLast()
            }
            let line = trimmed.hasPrefix("/") ? trimmed : typed
            if !line.hasPrefix("/") || line.hasPrefix("//") { sent.append(line) }
            text = []
            cursor = 0
            browsing = nil
            return .submit(line)
        case .backspace:
            guard cursor > 0 else { return .none }
            cursor -= 1
            text.remove(at: cursor)
            return edited()
        case .delete:
            guard cursor < text.count else { return .none }
            text.remove(at: cursor)
            return edited()
        case .left:
            cursor = max(0, cursor - 1)
        case .right:
            cursor = min(text.count, cursor + 1)
        case .home:
            cursor = 0
        case .end:
            cursor = text.count
        case .killLine:
            guard !text.isEmpty else { return .none }
            text.removeSubrange(0..<cursor)
            cursor = 0
            return edited()
        case .killToEnd:
            guard cursor < text.count else { return .none }
            text.removeSubrange(cursor...)
            return edited()
        case .killWord:
            guard cursor > 0 else { return .none }
            var start = cursor
            // Words end at any white space: a pasted line break or tab too.
            while start > 0, text[start - 1].isWhitespace { start -= 1 }
            while start > 0, !text[start - 1].isWhitespace { start -= 1 }
            text.removeSubrange(start..<cursor)
            cursor = start
            return edited()
        case .up:
            guard !sent.isEmpty else { return .none }
            if browsing == nil { draft = text }
            let index = max(0, (browsing ?? sent.count) - 1)
            browsing = index
            show(Array(sent[index]))
        case .down:
            guard let index = browsing else { return .none }
            if index + 1 < sent.count {
                browsing = index + 1
                show(Array(sent[index + 1]))
            } else {
                browsing = nil
                show(draft)
            }
        case .endOfInput:
            return text.isEmpty ? .quit : .none
        case .interrupt:
            return .quit
        case .redraw:
            return .redraw
        case .resize, .other, .pageUp, .pageDown, .suspend:
            return .none
        }
        return .none
    }

    /// Keys arrive one Unicode scalar at a time. One that extends the character before the
    /// cursor (a flag's second half, a skin tone, a combining accent, a joined emoji) joins
    /// it, so the cursor and Backspace move over what the user sees as one character
    /// (found by QA: Backspace took the skin tone off 👍🏽, Left split 🇫🇷).
    private mutating func insert(_ character: Character) {
        if cursor > 0 {
            let joined = String(text[cursor - 1]) + String(character)
            if joined.count == 1, let single = joined.first {
                text[cursor - 1] = single
                return
            }
        }
        text.insert(character, at: cursor)
        cursor += 1
    }

    private mutating func show(_ line: [Character]) {
        text = line
        cursor = line.count
    }

    private mutating func edited() -> Action {
        browsing = nil
        return .edited
    }
}

/// A key as the chat understands it, decoded from the terminal by the driver.
package enum ChatKey: Equatable, Sendable {
    case character(Character)
    case enter, backspace, delete, left, right, up, down, home, end, pageUp, pageDown
    /// Ctrl-U: delete to the start of the line.
    case killLine
    /// Ctrl-K: delete to the end of the line.
    case killToEnd
    /// Ctrl-W: delete the word before the cursor.
    case killWord
    /// Ctrl-D: leave when the line is empty.
    case endOfInput
    /// Ctrl-C.
    case interrupt
    /// Ctrl-L.
    case redraw
    /// Ctrl-Z: stop chat as a shell's job (`fg` resumes it).
    case suspend
    case resize
    case other

    /// A control character's meaning (raw mode delivers them as characters). Ctrl-A and
    /// Ctrl-E are Home and End, as in readline.
    package init(control value: UInt32) {
        switch value {
        case 0x01: self = .home
        case 0x03: self = .interrupt
        case 0x04: self = .endOfInput
        case 0x05: self = .end
        case 0x08, 0x7F: self = .backspace
        case 0x0A, 0x0D: self = .enter
        case 0x0C: self = .redraw
        case 0x15: self = .killLine
        case 0x0B: self = .killToEnd
        case 0x17: self = .killWord
        case 0x1A: self = .suspend
        case 0x02: self = .left
        case 0x06: self = .right
        case 0x0E: self = .down
        case 0x10: self = .up
        default: self = .other
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
