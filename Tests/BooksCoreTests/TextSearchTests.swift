import BooksTestSupport
import Testing

@testable import BooksCore

/// The byte search of filter conditions agrees with `String.contains` (Character semantics).
@Suite struct TextSearchTests {
    @Test func agreesWithCharacterSearchOnRandomText() {
        var rng = SplitMix64(seed: 16)
        let ascii = ["a", "b", "ab", "ba", "x", " ", "|", "\n", "\r", "\r\n", "A"]
        var byteMatches = 0
        for round in 0..<6_000 {
            let pieces = round % 2 == 0 ? ascii : Samples.pieces + ascii
            func text(_ most: Int) -> String {
                (0..<Int.random(in: 0...most, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            }
            let haystack = text(8)
            var needle = text(3)
            if round % 3 == 0, !haystack.isEmpty {  // often a real substring (by bytes)
                let bytes = Array(haystack.utf8)
                let from = Int.random(in: 0..<bytes.count, using: &rng)
                let to = Int.random(in: from...bytes.count, using: &rng)
                needle = String(decoding: bytes[from..<to], as: UTF8.self)
            }
            let expected = haystack.contains(needle)
            #expect(TextSearch.contains(haystack, needle) == expected, "\(Array(haystack.utf8)) \(Array(needle.utf8))")
            if expected, !needle.isEmpty, haystack.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) { byteMatches += 1 }
        }
        #expect(byteMatches > 300)  // the byte path was taken, and found matches
    }

    @Test func characterSemanticsAreKeptOutsidePlainASCII() {
        #expect(!TextSearch.contains("e\u{301}", "e"))  // é (e + combining accent) does not contain e
        #expect(TextSearch.contains("caf\u{E9}", "cafe\u{301}"))  // canonical equivalence
        #expect(!TextSearch.contains("x\r\ny", "\r"))  // CR LF is one Character
        #expect(TextSearch.contains("x\r\ny", "\r\n"))
        #expect(TextSearch.contains("Dune Messiah", "e M"))
        #expect(!TextSearch.contains("Dune", "Dunes"))
        #expect(TextSearch.contains("", ""))
        #expect(
            TextSearch.contains(String(repeating: "a", count: 3000) + "b", String(repeating: "a", count: 1000) + "b"))
    }
}
