import Testing

@testable import BooksProtocol

@Suite struct LineFramerTests {
    private func lines(_ frames: [LineFramer.Frame]) -> [String] {
        frames.map { frame in
            switch frame {
            case .line(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .tooLong: return "<tooLong>"
            }
        }
    }

    @Test func splitAcrossFeeds() {
        var f = LineFramer()
        #expect(f.feed(Array("{\"a\":".utf8)).isEmpty)
        #expect(f.bufferedByteCount == 5)
        #expect(lines(f.feed(Array("1}\n{\"b\"".utf8))) == ["{\"a\":1}"])
        #expect(lines(f.feed(Array(":2}\n".utf8))) == ["{\"b\":2}"])
        #expect(f.bufferedByteCount == 0)
    }

    @Test func byteByByteTrickle() {
        var f = LineFramer()
        var out: [String] = []
        for b in Array("hello\r\nworld\n".utf8) { out += lines(f.feed([b])) }
        #expect(out == ["hello", "world"])
    }

    @Test func crlfAndEmptyLines() {
        var f = LineFramer()
        #expect(lines(f.feed(Array("a\r\n\r\n\nb\r".utf8))) == ["a", "", ""])
        #expect(lines(f.feed(Array("\n".utf8))) == ["b"])
    }

    @Test func manyLinesInOneFeed() {
        var f = LineFramer()
        let text = (0..<1000).map { "line \($0)\n" }.joined()
        let out = lines(f.feed(Array(text.utf8)))
        #expect(out.count == 1000)
        #expect(out.first == "line 0")
        #expect(out.last == "line 999")
    }

    @Test func overlongLineYieldsOnceThenDiscardsUntilNewline() {
        var f = LineFramer(maxLineLength: 10)
        #expect(lines(f.feed(Array("0123456789".utf8))).isEmpty)
        #expect(lines(f.feed(Array("ab".utf8))) == ["<tooLong>"])
        #expect(f.isDiscarding)
        #expect(f.bufferedByteCount == 0)
        #expect(lines(f.feed(Array(repeating: UInt8(ascii: "x"), count: 100_000))).isEmpty)
        #expect(f.bufferedByteCount == 0)
        #expect(lines(f.feed(Array("zz\nok\n".utf8))) == ["ok"])
        #expect(!f.isDiscarding)
    }

    @Test func limitIsInclusiveAndCRDoesNotCount() {
        var f = LineFramer(maxLineLength: 3)
        #expect(lines(f.feed(Array("abc\nabc\r\nabcd\nx\n".utf8))) == ["abc", "abc", "<tooLong>", "x"])
        // The too-long line completed inside one feed: nothing left to discard.
        #expect(!f.isDiscarding)
    }

    @Test func hugeLineHasBoundedMemory() {
        var f = LineFramer(maxLineLength: 1 << 20)
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        var tooLong = 0
        for _ in 0..<(100 * 16) {  // 100 MiB
            for frame in f.feed(chunk) { if case .tooLong = frame { tooLong += 1 } }
            #expect(f.bufferedByteCount <= (1 << 20) + 1)
        }
        #expect(tooLong == 1)
        #expect(lines(f.feed(Array("\n{}\n".utf8))) == ["{}"])
    }
}
