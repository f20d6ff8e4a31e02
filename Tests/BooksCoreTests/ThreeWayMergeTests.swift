import BooksTestSupport
import Testing

@testable import BooksCore

/// What one side does to book `x` (`x|N0|A0` in the base).
enum SideEdit: String, CaseIterable, CustomStringConvertible {
    case unchanged, name, author, both, same, deleted
    var description: String { rawValue }

    /// The row of `x` after this side's edit (`tag` makes the two sides' values differ), nil when deleted.
    func row(_ tag: String) -> String? {
        switch self {
        case .unchanged: return "x|N0|A0"
        case .name: return "x|N\(tag)|A0"
        case .author: return "x|N0|A\(tag)"
        case .both: return "x|N\(tag)|A\(tag)"
        case .same: return "x|Ns|As"
        case .deleted: return nil
        }
    }
}

@Suite struct ThreeWayMergeTests {
    init() {}

    static let baseRows = ["# books", "a|A|a", "x|N0|A0", "", "z|Z|z"]

    /// The base with `x` edited: in the current file in the base's layout; in the save with a
    /// layout of the saver's own (a comment, a bad line, `z` moved first).
    static func versions(mine: SideEdit, theirs: SideEdit) -> (BookDocument, BookDocument, BookDocument) {
        let base = BookDocument(parsing: Samples.file(baseRows))
        let current = BookDocument(
            parsing: Samples.file(["# books", "a|A|a"] + [theirs.row("t")].compactMap { $0 } + ["", "z|Z|z"]))
        let save = BookDocument(
            parsing: Samples.file(
                ["z|Z|z", "# books", "# my note", "a|A|a"] + [mine.row("m")].compactMap { $0 } + ["", "a bad line"]))
        return (base, current, save)
    }

    /// The expected book `x` (nil: absent) and conflict kinds, decided by hand per combination.
    static func expected(mine: SideEdit, theirs: SideEdit) -> (row: String?, conflicts: [MergeConflict.Kind]) {
        switch (mine, theirs) {
        case (.unchanged, _): return (theirs.row("t"), [])
        case (_, .unchanged): return (mine.row("m"), [])
        case (.deleted, .deleted): return (nil, [])
        case (.deleted, _): return (theirs.row("t"), [.deletedByMine])
        case (_, .deleted): return (mine.row("m"), [.deletedByTheirs])
        case (.same, .same): return ("x|Ns|As", [])
        case (.name, .name): return ("x|Nm|A0", [.name])
        case (.author, .author): return ("x|N0|Am", [.author])
        case (.name, .author): return ("x|Nm|At", [])
        case (.author, .name): return ("x|Nt|Am", [])
        case (.both, .name): return ("x|Nm|Am", [.name])
        case (.both, .author): return ("x|Nm|Am", [.author])
        case (.name, .both): return ("x|Nm|At", [.name])
        case (.author, .both): return ("x|Nt|Am", [.author])
        case (.both, .both): return ("x|Nm|Am", [.name, .author])
        case (.same, .name), (.same, .both): return ("x|Ns|As", [.name] + (theirs == .both ? [.author] : []))
        case (.same, .author): return ("x|Ns|As", [.author])
        case (.name, .same): return ("x|Nm|As", [.name])
        case (.author, .same): return ("x|Ns|Am", [.author])
        case (.both, .same): return ("x|Nm|Am", [.name, .author])
        default:
            Issue.record("no expectation for \(mine), \(theirs)")
            return (nil, [])
        }
    }

    @Test(arguments: SideEdit.allCases, SideEdit.allCases)
    func everyCombinationOfOneBook(mine: SideEdit, theirs: SideEdit) throws {
        let (base, current, save) = Self.versions(mine: mine, theirs: theirs)
        let result = ThreeWayMerge.merge(base: base, current: current, save: save)
        let (row, kinds) = Self.expected(mine: mine, theirs: theirs)
        let merged = BookDocument(parsing: result.bytes)
        let expectedBook = row.map { BookDocument(parsing: Array($0.utf8)).books[0] }
        #expect(merged.book(id: "x") == expectedBook)
        #expect(result.conflicts.map(\.kind) == kinds)
        #expect(merged.books.filter { $0.id != "x" }.map(\.id) == ["z", "a"])
        // The saver's layout stands: every line of the save but x's row is kept, in order.
        let text = String(decoding: result.bytes, as: UTF8.self)
        let others = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("x|") }
        #expect(others == ["z|Z|z", "# books", "# my note", "a|A|a", "", "a bad line", ""])
        #expect(result.isSave == (result.bytes == save.bytes))
        let again = ThreeWayMerge.merge(base: base, current: current, save: merged)
        #expect(again.bytes == result.bytes)
        #expect(again.isSave)
    }

    @Test func conflictRecordsBothValues() throws {
        let (base, current, save) = Self.versions(mine: .name, theirs: .name)
        let conflict = try #require(ThreeWayMerge.merge(base: base, current: current, save: save).conflicts.first)
        #expect(conflict.id == "x" && conflict.field == "name")
        #expect(conflict.mineValue == "Nm" && conflict.theirsValue == "Nt" && conflict.base?.name == "N0")
    }

    @Test func othersInsertGoesAfterItsPredecessor() {
        let base = BookDocument(parsing: Samples.file(["a|A|a", "b|B|b", "c|C|c"]))
        let current = BookDocument(parsing: Samples.file(["a|A|a", "b|B|b", "n1|New|1", "n2|New|2", "c|C|c"]))
        let save = BookDocument(parsing: Samples.file(["c|C|c", "# mine", "b|B|b2", "a|A|a"]))
        let result = ThreeWayMerge.merge(base: base, current: current, save: save)
        #expect(
            String(decoding: result.bytes, as: UTF8.self)
                == "c|C|c\n# mine\nb|B|b2\nn1|New|1\nn2|New|2\na|A|a\n")
        #expect(result.conflicts.isEmpty && !result.isSave)
    }

    @Test func othersInsertWithoutPredecessorInTheSaveGoesAtTheEnd() {
        let base = BookDocument(parsing: Samples.file(["a|A|a", "b|B|b"]))
        let current = BookDocument(parsing: Samples.file(["n|New|n", "a|A|a", "b|B|b"]))
        let save = BookDocument(parsing: Array("b|B|b\na|A|a".utf8))  // no final line end
        let result = ThreeWayMerge.merge(base: base, current: current, save: save)
        #expect(String(decoding: result.bytes, as: UTF8.self) == "b|B|b\na|A|a\nn|New|n\n")
    }

    @Test func predecessorDeletedByTheSaverIsSkipped() {
        let base = BookDocument(parsing: Samples.file(["a|A|a", "b|B|b", "c|C|c"]))
        let current = BookDocument(parsing: Samples.file(["a|A|a", "b|B|b", "n|New|n", "c|C|c"]))
        let save = BookDocument(parsing: Samples.file(["a|A|a", "c|C|c"]))
        let result = ThreeWayMerge.merge(base: base, current: current, save: save)
        #expect(String(decoding: result.bytes, as: UTF8.self) == "a|A|a\nn|New|n\nc|C|c\n")
    }

    @Test func insertsOnBothSides() {
        let base = BookDocument(parsing: Samples.file(["a|A|a"]))
        let current = BookDocument(parsing: Samples.file(["a|A|a", "t|T|t", "s|Same|s", "d|Theirs|d"]))
        let save = BookDocument(parsing: Samples.file(["a|A|a", "m|M|m", "s|Same|s", "d|Mine|d"]))
        let result = ThreeWayMerge.merge(base: base, current: current, save: save)
        #expect(
            String(decoding: result.bytes, as: UTF8.self) == "a|A|a\nt|T|t\nm|M|m\ns|Same|s\nd|Mine|d\n")
        #expect(result.conflicts.map(\.kind) == [.name])
        #expect(result.conflicts.first?.base == nil)
    }

    @Test func crlfAndEscapesAreKept() {
        let base = BookDocument(parsing: Samples.file(["a|A\\|x|a", "b|B|b"], crlf: true))
        let current = BookDocument(parsing: Samples.file(["a|A\\|x|a", "b|B|b2", "n|N\\\\|n"], crlf: true))
        let save = BookDocument(parsing: Samples.file(["a|A\\|y|a", "b|B|b"], crlf: true))
        let result = ThreeWayMerge.merge(base: base, current: current, save: save)
        #expect(String(decoding: result.bytes, as: UTF8.self) == "a|A\\|y|a\r\nb|B|b2\r\nn|N\\\\|n\r\n")
    }

    @Test func netChangesCompose() {
        let a = Book(id: "a", name: "A", author: "a")
        let a2 = Book(id: "a", name: "A2", author: "a")
        let n = Book(id: "n", name: "N", author: "n")
        let net = NetChanges(composing: [
            ChangeSet(inserted: [n], updated: [BookUpdate(old: a, new: a2)]),
            ChangeSet(updated: [BookUpdate(old: a2, new: a)], deleted: [n]),
            ChangeSet(deleted: [a]),
        ])
        #expect(net.deltas == ["a": BookDelta(before: a, after: nil)])
    }

    /// Random disjoint edits on both sides: the result has every edit of both, and is idempotent.
    @Test func randomDisjointEditsAllSurvive() {
        var rng = SplitMix64(seed: 28)
        for _ in 0..<200 {
            let count = Int.random(in: 0..<12, using: &rng)
            let baseBooks = (0..<count).map { Book(id: "b\($0)", name: "N\($0)", author: "A\($0)") }
            var mine = baseBooks
            var theirs = baseBooks
            var expected = Dictionary(uniqueKeysWithValues: baseBooks.map { ($0.id, $0) })
            for k in 0..<count {
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: mine[k].name = Samples.randomString(&rng) + "m"
                case 1: theirs[k].author = Samples.randomString(&rng) + "t"
                case 2: mine[k].id = ""
                case 3: theirs[k].id = ""
                default: break
                }
                let m = mine[k]
                let t = theirs[k]
                if m.id.isEmpty || t.id.isEmpty {
                    expected[baseBooks[k].id] = nil
                } else {
                    expected[m.id] = Book(id: m.id, name: m.name, author: t.author)
                }
            }
            let mineInsert = Book(id: "m\(count)", name: "M", author: "m")
            let theirsInsert = Book(id: "t\(count)", name: "T", author: "t")
            mine.append(mineInsert)
            theirs.insert(theirsInsert, at: Int.random(in: 0...theirs.count, using: &rng))
            expected[mineInsert.id] = mineInsert
            expected[theirsInsert.id] = theirsInsert
            func doc(_ books: [Book]) -> BookDocument {
                var bytes: [UInt8] = []
                for book in books where !book.id.isEmpty { bytes += RowEscaping.row(for: book) + [0x0A] }
                return BookDocument(parsing: bytes)
            }
            let (b, c, n) = (doc(baseBooks), doc(theirs), doc(mine.shuffled(using: &rng)))
            let result = ThreeWayMerge.merge(base: b, current: c, save: n)
            let merged = BookDocument(parsing: result.bytes)
            #expect(Dictionary(uniqueKeysWithValues: merged.books.map { ($0.id, $0) }) == expected)
            #expect(result.conflicts.isEmpty)
            #expect(ThreeWayMerge.merge(base: b, current: c, save: merged).isSave)
        }
    }
}
