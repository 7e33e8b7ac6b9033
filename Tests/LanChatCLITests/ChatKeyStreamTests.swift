import Testing

@testable import LanChatCLI

/// Bracketed paste in `lanchat chat`: pasted line breaks go into the message instead of
/// sending each line, also when the terminal's marker is cut between two reads.
@Suite struct ChatKeyStreamTests {
    static func raw(_ text: String) -> [ChatKeyStream.Raw] {
        text.unicodeScalars.map { .character($0.value) }
    }

    static func text(_ keys: [ChatKey]) -> String {
        keys.map { key in
            switch key {
            case .character(let character): String(character)
            case .enter: "<enter>"
            default: "<\(key)>"
            }
        }.joined()
    }

    @Test func aPastesLineBreaksAreTextAndTypedOnesAreEnter() {
        var stream = ChatKeyStream()
        let keys = stream.keys(
            Self.raw("a\r\u{1B}[200~one\r\ntwo\rthree\n\tfour\u{7}\u{1B}[201~b\r"))
        #expect(Self.text(keys) == "a<enter>one\ntwo\nthree\n\tfourb<enter>")
        #expect(!stream.pasting)
    }

    @Test func aMarkerCutBetweenReadsIsStillOne() {
        var stream = ChatKeyStream()
        // Cut inside the start marker: nothing of it is typed.
        #expect(Self.text(stream.keys(Self.raw("x\u{1B}[20"))) == "x")
        #expect(Self.text(stream.keys(Self.raw("0~line\r"))) == "line\n")
        #expect(stream.pasting)
        // A CR LF cut between reads is one line break.
        #expect(Self.text(stream.keys(Self.raw("\nmore\u{1B}"))) == "more")
        #expect(Self.text(stream.keys(Self.raw("[201~\r"))) == "<enter>")
        #expect(!stream.pasting)
    }

    @Test func keysOutsideAPasteMeanWhatTheyMeant() {
        var stream = ChatKeyStream()
        // Alt chords and unknown sequences type nothing; a lone Escape is not held back.
        #expect(Self.text(stream.keys(Self.raw("a\u{1B}bc\u{1B}[4~d"))) == "acd")
        #expect(Self.text(stream.keys(Self.raw("\u{1B}"))) == "<other>")
        #expect(Self.text(stream.keys(Self.raw("e"))) == "e")
        #expect(Self.text(stream.keys([.function(.left)])) == "<left>")
        // In a paste, a function key's Enter is a line break and other function keys nothing.
        let pasted = stream.keys(
            Self.raw("\u{1B}[200~") + [.function(.enter), .function(.left)]
                + Self.raw("\u{1B}[201~"))
        #expect(Self.text(pasted) == "\n")
    }

    /// A paste whose end never comes cannot trap the user: Ctrl-C still leaves.
    @Test func ctrlCLeavesEvenInAPasteThatNeverEnds() {
        var stream = ChatKeyStream()
        #expect(Self.text(stream.keys(Self.raw("\u{1B}[200~dangling\r"))) == "dangling\n")
        #expect(stream.keys(Self.raw("\u{03}")) == [.interrupt])
        #expect(!stream.pasting)
    }

    /// Pasted terminal output loses its escape sequences whole, not only their ESC.
    @Test func pastedEscapeSequencesGoWhole() {
        var stream = ChatKeyStream()
        let keys = stream.keys(
            Self.raw(
                "\u{1B}[200~\u{1B}[31mred\u{1B}[0m \u{1B}]0;title\u{07}t\u{1B}]2;x\u{1B}\\u\u{1B}(Bv"
                    + "\u{1B}[201~"))
        #expect(Self.text(keys) == "red tuv")
        #expect(!stream.pasting)
    }
}
