import BooksCore
import Testing

@testable import BooksBenchmarks

/// The benchmark's helpers: deterministic files, correct edits, docs section splicing.
/// (No timings are asserted: they depend on the machine and its load.)
struct BenchmarkSupportTests {
    @Test func generatedFilesAreDeterministicValidBooks() {
        var first = BookFileGenerator()
        var second = BookFileGenerator()
        let bytes = first.file(rows: 500)
        #expect(bytes == second.file(rows: 500))
        let document = BookDocument(parsing: bytes)
        #expect(document.bookCount == 500)
        #expect(document.badLineCount == 0)
        #expect(bytes.contains { $0 >= 0x80 })  // some non-ASCII text
    }

    @Test(arguments: RowEdit.Kind.allCases)
    func everyEditChangesExactlyOneBookOnBothPaths(kind: RowEdit.Kind) {
        var generator = BookFileGenerator()
        let bytes = generator.file(rows: 301)
        let edit = RowEdit(kind, of: bytes, rows: 301, newRow: generator.row())
        var incremental = BookDocument(parsing: bytes)
        var full = incremental
        let update = incremental.update(to: edit.edited)
        #expect(update.path == .incremental)
        #expect(update.changes.count == 1)
        #expect(full.updateFully(to: edit.edited) == update.changes)
    }

    @Test func replacesOnlyItsOwnSection() {
        let text = "# T\n\n## A\nold a\n\n## Core: parse and diff\nold core\n\n## B\nb\n"
        let updated = DocsSection.replacing(
            heading: "## Core: parse and diff", with: "## Core: parse and diff\nnew\n", in: text)
        #expect(updated == "# T\n\n## A\nold a\n\n## Core: parse and diff\nnew\n\n## B\nb\n")
        let appended = DocsSection.replacing(heading: "## C", with: "## C\nc", in: "# T\n")
        #expect(appended == "# T\n\n## C\nc\n")
    }

    @Test func formatsNumbersWithoutFoundation() {
        #expect(CoreReport.f(4.46, 1) == "4.5")
        #expect(CoreReport.f(0.0125, 3) == "0.013")
        #expect(CoreReport.f(1747.4, 0) == "1747")
        #expect(CoreReport.rows(1_000_000) == "1M")
        #expect(Stopwatch.median([5, 1, 3]) == 3)
        #expect(Stopwatch.median([4, 1, 3, 2]) == 2.5)
    }
}
