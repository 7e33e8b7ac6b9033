import LanChatClient
import Testing

/// The control protocol's framing on the client side: one JSON document per line.
@Suite struct LineSplitterTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func linesArriveWholeWhateverTheChunksAre() throws {
        let stream = bytes("{\"a\":1}\n\n{\"b\":2}\nlast")
        for size in 1...stream.count {
            var splitter = LineSplitter()
            var lines: [[UInt8]] = []
            var start = 0
            while start < stream.count {
                let end = min(start + size, stream.count)
                lines += try splitter.append(stream[start..<end])
                start = end
            }
            #expect(lines == [bytes("{\"a\":1}"), [], bytes("{\"b\":2}")], "chunks of \(size)")
            #expect(splitter.hasPartialLine)
            #expect(try splitter.append(bytes("\n")) == [bytes("last")])
            #expect(!splitter.hasPartialLine)
        }
    }

    @Test func aLineOverTheLimitIsRefusedWithOrWithoutItsNewline() throws {
        var open = LineSplitter(maxLineBytes: 8)
        #expect(try open.append(bytes("12345678")).isEmpty)
        #expect(throws: LineSplitter.Failure.lineTooLong(limit: 8)) {
            try open.append(bytes("9"))
        }
        var ended = LineSplitter(maxLineBytes: 8)
        #expect(throws: LineSplitter.Failure.lineTooLong(limit: 8)) {
            try ended.append(bytes("ok\n123456789\n"))
        }
        var exact = LineSplitter(maxLineBytes: 8)
        #expect(try exact.append(bytes("12345678\n")) == [bytes("12345678")])
    }

    @Test func aBigAnswerInSixtyFourKiBChunksIsOneLine() throws {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 350_000)
        var splitter = LineSplitter()
        var lines: [[UInt8]] = []
        let stream = line + [UInt8(ascii: "\n")] + bytes("{}\n")
        var start = 0
        while start < stream.count {
            let end = min(start + 65_536, stream.count)
            lines += try splitter.append(stream[start..<end])
            start = end
        }
        #expect(lines == [line, bytes("{}")])
    }
}
