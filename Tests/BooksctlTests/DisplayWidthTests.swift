import BooksCore
import Testing

@testable import booksctl

@Suite struct DisplayWidthTests {
    @Test func scalarsAndClusters() {
        #expect(DisplayWidth.of("Dune") == 4)
        #expect(DisplayWidth.of("漢字") == 4)  // East Asian wide
        #expect(DisplayWidth.of("ＡＢ") == 4)  // fullwidth forms
        #expect(DisplayWidth.of("한국어") == 6)  // Hangul syllables
        #expect(DisplayWidth.of("e\u{301}") == 1)  // combining acute
        #expect(DisplayWidth.of("Zoë") == 3)
        #expect(DisplayWidth.of("🎉") == 2)
        #expect(DisplayWidth.of("👨‍👩‍👧") == 2)  // ZWJ family: one cluster
        #expect(DisplayWidth.of("🇫🇷") == 2)  // flag: two regional indicators
        #expect(DisplayWidth.of("☃\u{FE0F}") == 2)  // emoji presentation selector
        #expect(DisplayWidth.of("☃") == 1)  // text presentation by default
        #expect(DisplayWidth.of("a\u{200B}b") == 2)  // zero-width space
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func truncateAndPad() {
        #expect(DisplayWidth.truncate("Frank Herbert", to: 7) == "Frank …")
        #expect(DisplayWidth.truncate("Dune", to: 4) == "Dune")
        #expect(DisplayWidth.truncate("漢字の本", to: 7) == "漢字の…")
        #expect(DisplayWidth.truncate("漢字の本", to: 6) == "漢字…")  // a wide character never straddles the cut
        #expect(DisplayWidth.of(DisplayWidth.truncate("漢字の本", to: 6)) == 5)
        #expect(DisplayWidth.truncate("e\u{301}e\u{301}e\u{301}", to: 2) == "e\u{301}…")
        #expect(DisplayWidth.pad("漢", to: 4) == "漢  ")
        #expect(DisplayWidth.pad("toolong", to: 3) == "toolong")
    }

    @Test func layoutShrinksTheWidestFlexibleColumn() {
        #expect(TableLayout.fit([36, 20, 10], available: nil) == [36, 20, 10])
        #expect(TableLayout.fit([36, 20, 10], available: 80) == [36, 20, 10])
        #expect(TableLayout.fit([36, 20, 10], available: 60) == [36, 10, 10])
        #expect(TableLayout.fit([36, 20, 10], available: 52) == [36, 6, 6])
        // The id shrinks only when nothing else can, and never below the minimum.
        #expect(TableLayout.fit([36, 20, 10], available: 40) == [24, 6, 6])
        #expect(TableLayout.fit([36, 20, 10], available: 5) == [6, 6, 6])
    }

    @Test func tableColumnsLineUpByDisplayWidth() {
        let books = [
            Book(id: "1", name: "漢字の本", author: "著者"), Book(id: "22", name: "Dune", author: "Frank Herbert"),
            Book(id: "3", name: "Cafe\u{301} 🎉", author: "Zoë"),
        ]
        let lines = BookTable.aligned(books, style: Style(enabled: false))
        // The author column (the last, unpadded) starts at the same display column on every line.
        let authors = ["AUTHOR"] + books.map(\.author)
        let starts = zip(lines, authors).map { line, author in DisplayWidth.of(String(line.dropLast(author.count))) }
        #expect(Set(starts).count == 1, "\(lines)")
        let cut = BookTable.aligned(books, style: Style(enabled: false), width: 20)
        #expect(cut.allSatisfy { DisplayWidth.of($0) <= 20 }, "\(cut)")
        #expect(cut.contains { $0.contains("…") })
    }
}
