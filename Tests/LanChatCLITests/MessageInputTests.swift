import FoundationEssentials
import LanChatCLI
import LanChatControl
import Testing

/// What `send` accepts as a message, from words, standard input or `--lines`.
@Suite struct MessageInputTests {
    @Test func wordsAreKeptAsGiven() throws {
        #expect(try MessageText.validate(" build is green ") == " build is green ")
    }

    @Test(arguments: [
        " ", "\n\t ", "\u{3000}", "\u{200B}", " \u{2060}\u{FEFF} ", "\u{3164}", "\u{2800}",
        "\u{034F}\u{FE0F}",
    ])
    func blankTextIsBadInput(text: String) {
        // Not "empty": the user sees characters and is told what they are (found by QA).
        #expect(
            throws: ControlError.badInput("the message is only white space or invisible characters")
        ) {
            try MessageText.validate(text)
        }
        // The daemon says so too, to a client that is not lanchat.
        #expect(
            throws: ControlError.badInput("a message of only white space or invisible characters")
        ) {
            try SendParams(peer: "bob", text: text).validatedTexts()
        }
    }

    @Test func emptyTextIsBadInput() {
        #expect(throws: ControlError.badInput("the message is empty")) {
            try MessageText.validate("")
        }
        #expect(throws: ControlError.badInput("empty message")) {
            try SendParams(peer: "bob", text: "").validatedTexts()
        }
        // Of many, the one at fault is named by its place (found by QA).
        #expect(throws: ControlError.badInput("texts[1]: empty message")) {
            try SendParams(peer: "bob", texts: ["ok1", "", "ok2"]).validatedTexts()
        }
    }

    /// Invisible characters beside visible ones are the sender's business (a joiner in an
    /// emoji sequence): only a text of nothing else is blank.
    @Test func aVisibleCharacterMakesTheTextNotBlank() throws {
        #expect(try MessageText.validate("\u{200B}a") == "\u{200B}a")
        #expect(!"\u{1F468}\u{200D}\u{1F469}".isBlankText)
    }

    @Test func limitIsInBytesNotCharacters() throws {
        let atLimit = String(repeating: "é", count: 32_768)  // 65 536 bytes
        #expect(try MessageText.validate(atLimit).utf8.count == 65_536)
        let over = atLimit + "x"
        #expect(
            throws: ControlError.badInput("the message is 65 537 bytes; the limit is 65 536 bytes")
        ) {
            try MessageText.validate(over)
        }
    }

    @Test func standardInputLosesOnlyTrailingLineEnds() throws {
        let bytes = Array("  two\nlines\r\n\n".utf8)
        #expect(try MessageText.fromStandardInput(bytes) == "  two\nlines")
    }

    @Test func invalidUTF8OnStandardInputIsBadInput() {
        #expect(throws: ControlError.badInput("standard input is not valid UTF-8")) {
            try MessageText.fromStandardInput([0x68, 0xFF, 0x69])
        }
    }

    @Test func emptyStandardInputIsBadInput() {
        #expect(throws: ControlError.badInput("the message is empty")) {
            try MessageText.fromStandardInput(Array("\n\n".utf8))
        }
    }

    /// The daemon's stores end a text at U+0000; `send` refuses it on every input path.
    @Test func aNULIsBadInputFromWordsAndStandardInput() {
        let refused = ControlError.badInput(
            "the message contains U+0000 (NUL), which lanchat does not send")
        #expect(throws: refused) { try MessageText.validate("before\u{0}after") }
        #expect(throws: refused) { try MessageText.fromStandardInput(Array("a\u{0}b\n".utf8)) }
    }

    @Test func aLineWithNULIsRejectedWhileOthersPass() {
        var classifier = LineClassifier()
        let items = classifier.feed(ArraySlice(Array("ok\nbad\u{0}line\nfine\n".utf8)))
        #expect(
            items == [
                .message(line: 1, text: "ok"),
                .rejected(line: 2, reason: "line 2 contains U+0000 (NUL)"),
                .message(line: 3, text: "fine"),
            ])
    }

    // MARK: undecodable arguments

    @Test func argumentsThatAreNotUTF8AreRecognisedAfterSwiftRepairedThem() {
        let undecodable = UndecodableArguments(raw: [
            Array("send".utf8), Array("bob".utf8), [0x68, 0x69, 0xFF],
            Array("--text=".utf8) + [0xC3, 0x28],
        ])
        #expect(undecodable.decoded == ["hi\u{FFFD}", "--text=\u{FFFD}(", "\u{FFFD}("])
        #expect(
            throws: ControlError.badInput(
                "the message argument is not valid UTF-8; nothing was sent")
        ) {
            try undecodable.check(
                ["hello", "hi\u{FFFD}"], as: "message", outcome: "nothing was sent")
        }
        #expect(
            throws: ControlError.badInput(
                "the --text argument is not valid UTF-8; nothing was done")
        ) {
            try undecodable.check(["\u{FFFD}("], as: "--text")
        }
        // A real U+FFFD typed by the user is valid UTF-8 and is sent.
        #expect(throws: Never.self) { try undecodable.check(["bob", "\u{FFFD}"], as: "PEER") }
    }

    // MARK: --lines

    @Test func linesAreSplitAcrossChunksAndBlankOnesSkipped() {
        var classifier = LineClassifier()
        var items = classifier.feed(ArraySlice("one\ntw".utf8))
        items += classifier.feed(ArraySlice("o\r\n\n   \nthree".utf8))
        items += classifier.finish()
        #expect(
            items == [
                .message(line: 1, text: "one"), .message(line: 2, text: "two"),
                .message(line: 5, text: "three"),
            ])
    }

    @Test func badLinesAreRejectedWithTheirNumberWhileOthersPass() {
        var classifier = LineClassifier(maxBytes: 8)
        var items = classifier.feed(ArraySlice(Array("ok\n".utf8) + [0xC3, 0x28, 10]))
        items += classifier.feed(ArraySlice("123456".utf8))
        items += classifier.feed(ArraySlice("789\nfine\n".utf8))
        #expect(
            items == [
                .message(line: 1, text: "ok"),
                .rejected(line: 2, reason: "line 2 is not valid UTF-8"),
                .rejected(line: 3, reason: "line 3 is 9 bytes; the limit is 8 bytes"),
                .message(line: 4, text: "fine"),
            ])
    }

    @Test func aLineExactlyAtTheLimitPassesEvenWithCRLF() {
        var classifier = LineClassifier(maxBytes: 4)
        let items = classifier.feed(ArraySlice("abcd\r\nabcd\n".utf8))
        #expect(items == [.message(line: 1, text: "abcd"), .message(line: 2, text: "abcd")])
    }

    @Test func oversizedLineIsNotKeptInMemory() {
        var classifier = LineClassifier(maxBytes: 4)
        for _ in 0..<1000 {
            #expect(classifier.feed(ArraySlice(repeating: UInt8(ascii: "x"), count: 1000)).isEmpty)
        }
        let items = classifier.finish()
        #expect(
            items == [.rejected(line: 1, reason: "line 1 is 1 000 000 bytes; the limit is 4 bytes")]
        )
    }

    @Test func batchTakesEverythingThatHasArrived() async {
        let queue = LineBatchQueue()
        queue.push(.message(line: 1, text: "a"))
        queue.push(.rejected(line: 2, reason: "r"))
        queue.push(.message(line: 3, text: "b"))
        let first = await queue.nextBatch(maxBytes: 1 << 20, maxCount: 100)
        #expect(first.count == 3)
        queue.push(.message(line: 4, text: "c"))
        queue.finish()
        #expect(
            await queue.nextBatch(maxBytes: 1 << 20, maxCount: 100) == [
                .message(line: 4, text: "c")
            ])
        #expect(await queue.nextBatch(maxBytes: 1 << 20, maxCount: 100).isEmpty)
    }

    @Test func batchesRespectCountAndSizeButAlwaysTakeOne() async {
        let queue = LineBatchQueue()
        for line in 1...5 { queue.push(.message(line: line, text: "0123456789")) }
        queue.finish()
        #expect(await queue.nextBatch(maxBytes: 1 << 20, maxCount: 2).count == 2)
        #expect(await queue.nextBatch(maxBytes: 1, maxCount: 100).count == 1)
        #expect(await queue.nextBatch(maxBytes: 26, maxCount: 100).count == 2)
        #expect(await queue.nextBatch(maxBytes: 1 << 20, maxCount: 100).isEmpty)
    }

    @Test func consumerWaitsForTheNextLine() async {
        let queue = LineBatchQueue()
        async let batch = queue.nextBatch(maxBytes: 1 << 20, maxCount: 100)
        queue.push(.message(line: 1, text: "late"))
        #expect(await batch == [.message(line: 1, text: "late")])
    }

    @Test(arguments: [
        "plain", "quote\" and \\ slash/", "\n\r\t\u{8}\u{C}", "\u{1}\u{1F}\u{7F}", "é€😀",
    ])
    func jsonSizeMatchesTheEncoder(text: String) throws {
        let encoded = try ControlJSON.encoder().encode([text])
        #expect(JSONSize.escaped(text) == encoded.count - 2 + 1)  // minus [ ], plus a comma
    }
}
