import CNcurses

#if canImport(Glibc)
    import Glibc
#endif

/// The terminal, driven through its terminfo description by ncursesw: raw keys (Ctrl-C and
/// Ctrl-D arrive as keys), no echo, function keys decoded, the screen drawn from rows.
/// Used from one thread only (ncurses is not thread-safe): `ChatTerminalLoop`'s.
///
/// `end()` gives the terminal back as it was; the loop calls it on every way out (a key, a
/// signal turned into an update, an error), so the user's shell is never left raw.
final class CursesTerminal {
    private let screen: OpaquePointer
    private var ended = false
    /// Keys read and not yet decoded: a paste's state between reads (`ChatKeyStream`).
    private var keyStream = ChatKeyStream()

    /// nil when the terminal cannot be driven (TERM unknown to terminfo): line mode then.
    init?() {
        UTF8Locale.ensure()
        // newterm, not initscr: initscr ends the process when TERM is unknown.
        guard let screen = newterm(nil, lanchat_stdout(), lanchat_stdin()) else { return nil }
        self.screen = screen
        set_term(screen)
        raw()
        noecho()
        nonl()
        keypad(lanchat_stdscr(), true)
        nodelay(lanchat_stdscr(), true)
        set_escdelay(25)
        Self.bracketedPaste(true)
    }

    /// xterm's bracketed paste (mode 2004): the terminal marks pasted text, so its line breaks
    /// go into the message instead of sending each line as a message of its own. Terminals
    /// that lack the mode ignore the request.
    private static func bracketedPaste(_ on: Bool) {
        fputs(on ? "\u{1B}[?2004h" : "\u{1B}[?2004l", lanchat_stdout())
        fflush(lanchat_stdout())
    }

    var width: Int { Int(getmaxx(lanchat_stdscr())) }
    var height: Int { Int(getmaxy(lanchat_stdscr())) }

    /// Takes the window's new size (SIGWINCH, seen by `StopSignals`): ncurses' own handler
    /// only notices it on a later key, and the dispatch source may have replaced it.
    func resizeToWindow() {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
            return
        }
        resizeterm(Int32(size.ws_row), Int32(size.ws_col))
    }

    func draw(_ rendered: ChatScreen.Rendered) {
        erase()
        if rendered.rows.contains(where: DisplayWidth.mayDisagree) {
            clearok(lanchat_stdscr(), true)
        }
        for (index, row) in rendered.rows.enumerated() {
            mvaddstr(Int32(index), 0, row)
        }
        move(Int32(rendered.cursorRow), Int32(rendered.cursorColumn))
        refresh()
    }

    /// Inside a paste whose end marker has not come yet (`ChatKeyStream`).
    var isPasting: Bool { keyStream.pasting }

    /// Every key waiting, decoded (none when there is none).
    func readKeys() -> [ChatKey] {
        var read: [ChatKeyStream.Raw] = []
        while true {
            var value: wint_t = 0
            let kind = get_wch(&value)
            if kind == ERR { break }
            read.append(
                kind == KEY_CODE_YES
                    ? .function(Self.decode(kind: kind, value: UInt32(value)))
                    : .character(UInt32(value)))
        }
        return keyStream.keys(read)
    }

    /// The input decoder: ncurses says whether `value` is a function key (`KEY_CODE_YES`) or
    /// a character; control characters mean what they mean in readline.
    static func decode(kind: Int32, value: UInt32) -> ChatKey {
        if kind == KEY_CODE_YES {
            switch Int32(value) {
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_BACKSPACE: return .backspace
            case KEY_DC: return .delete
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_ENTER: return .enter
            case KEY_RESIZE: return .resize
            default: return .other
            }
        }
        return ChatKeyDecoder.character(value)
    }

    /// Ctrl-Z: gives the terminal back and stops the process as a job (SIGTSTP, whose
    /// default stops it); once `fg` continues it, the screen is drawn again in full.
    func suspend() {
        Self.bracketedPaste(false)
        endwin()
        // The default action (stop), not ncurses' handler, which does not stop a process in
        // raw mode. This thread (a dispatch thread) blocks signals: unblocked for the raise,
        // the signal is taken here before `raise` returns, so the process stops at this
        // point and goes on from it when continued (`fg`). Sent elsewhere, it could land
        // while ncurses' refresh below briefly ignores SIGTSTP, and be lost.
        signal(SIGTSTP, SIG_DFL)
        var stop = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &stop, &previous)
        raise(SIGTSTP)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        clearok(lanchat_stdscr(), true)
        refresh()
        Self.bracketedPaste(true)
    }

    func end() {
        guard !ended else { return }
        ended = true
        Self.bracketedPaste(false)
        endwin()
        delscreen(screen)
    }

    deinit { end() }
}

/// Characters as keys: control characters by their readline meaning, everything else typed.
package enum ChatKeyDecoder {
    /// Which of the keys read to keep: an escape sequence ncurses did not know (`ESC [ 4 ~`
    /// under a TERM that lacks it) or an Alt chord (`ESC b`) is dropped whole, so none of it
    /// ends up typed into the message. `characters`: each key's character, nil for a key
    /// ncurses decoded itself.
    package static func withoutEscapeSequences(_ characters: [UInt32?]) -> [Bool] {
        var keep = [Bool](repeating: true, count: characters.count)
        var index = 0
        while index < characters.count {
            guard characters[index] == 0x1B, index + 1 < characters.count,
                let next = characters[index + 1]
            else {
                index += 1
                continue
            }
            var end = index + 1  // ESC x: an Alt chord
            if next == 0x5B {
                // CSI (`ESC [`): parameter and intermediate bytes, then one final byte.
                end += 1
                while end < characters.count, let byte = characters[end],
                    (0x20...0x3F).contains(byte)
                {
                    end += 1
                }
            } else if next == 0x4F {
                end += 1  // SS3 (`ESC O`): one final byte
            }
            for dropped in index...min(end, characters.count - 1) { keep[dropped] = false }
            index = end + 1
        }
        return keep
    }

    package static func character(_ value: UInt32) -> ChatKey {
        if value < 0x20 || value == 0x7F { return ChatKey(control: value) }
        guard let scalar = Unicode.Scalar(value) else { return .other }
        // C1 controls and bidirectional overrides are never typed into a message.
        if (0x80..<0xA0).contains(value) { return .other }
        return .character(Character(scalar))
    }
}
