import BooksCore
import FoundationEssentials
import Testing

@testable import booksctl

/// `booksctl conflicts` and `resolve`: parsing, which conflict an argument names, the JSON line.
@Suite struct ConflictsCommandTests {
    func parse(_ line: String) throws(UsageError) -> Command {
        try CommandLineParser.parse(line.split(separator: " ").map(String.init)).command
    }

    static func recorded(_ id: Int, book: String, kind: MergeConflict.Kind = .name) -> RecordedConflict {
        RecordedConflict(
            id: id,
            conflict: MergeConflict(
                id: book, kind: kind, base: Book(id: book, name: "Base", author: "A"),
                mine: Book(id: book, name: "Mine", author: "A"),
                theirs: kind == .deletedByTheirs ? nil : Book(id: book, name: "Theirs", author: "A")),
            seq: 5, baseSeq: 3, time: Date(timeIntervalSince1970: 0), who: "ann@host pid 7")
    }

    @Test func parsing() throws {
        #expect(try parse("conflicts") == .conflicts(json: false))
        #expect(try parse("conflicts --json") == .conflicts(json: true))
        #expect(try parse("resolve 3 --take theirs") == .resolve(id: "3", take: .theirs, json: false))
        #expect(try parse("resolve --take=mine abc -j") == .resolve(id: "abc", take: .mine, json: true))
        #expect(throws: UsageError.self) { try parse("resolve 3") }
        #expect(throws: UsageError.self) { try parse("resolve 3 --take both") }
        #expect(throws: UsageError.self) { try parse("resolve --take mine") }
        #expect(throws: UsageError.self) { try parse("conflicts extra") }
    }

    @Test func anArgumentNamesANumberOrABookWithOneConflict() throws {
        let conflicts = [
            Self.recorded(1, book: "b-one"), Self.recorded(2, book: "b-two"),
            Self.recorded(3, book: "b-two", kind: .author), Self.recorded(4, book: "7"),
        ]
        #expect(try ConflictsCommand.pick("2", from: conflicts).get().id == 2)
        #expect(try ConflictsCommand.pick("b-one", from: conflicts).get().id == 1)
        #expect(try ConflictsCommand.pick("b-o", from: conflicts).get().id == 1)
        #expect(try ConflictsCommand.pick("7", from: conflicts).get().id == 4)  // no conflict 7: book 7
        let several = ConflictsCommand.pick("b-two", from: conflicts)
        #expect(several.failureText?.contains("conflicts 2, 3") == true, "\(several)")
        #expect(ConflictsCommand.pick("b-", from: conflicts).failureText?.contains("several books") == true)
        #expect(ConflictsCommand.pick("99", from: conflicts).failureText?.contains("no unsettled conflict 99") == true)
    }

    @Test func jsonLine() throws {
        let line = ConflictsCommand.jsonLine(Self.recorded(1, book: "b", kind: .deletedByTheirs), store: "fiction")
        struct Line: Decodable, Equatable {
            var conflict: Int
            var id, field, kind, who, time, store: String
            var mine, theirs: String?
            var seq, baseSeq: UInt64
        }
        let decoded = try JSONDecoder().decode(Line.self, from: Data(line.utf8))
        #expect(
            decoded
                == Line(
                    conflict: 1, id: "b", field: "book", kind: "deletedByTheirs", who: "ann@host pid 7",
                    time: "1970-01-01T00:00:00.000Z", store: "fiction", mine: "Mine|A", theirs: nil, seq: 5,
                    baseSeq: 3))
        #expect(line.contains(#""theirs":null"#), "\(line)")
    }
}

extension Result where Failure == ConflictsCommand.Failure {
    /// The failure's message, or nil on success.
    var failureText: String? {
        if case .failure(let failure) = self { return failure.description }
        return nil
    }
}
