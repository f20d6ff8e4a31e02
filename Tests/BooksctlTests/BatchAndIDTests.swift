import BooksCore
import BooksProtocol
import FoundationEssentials
import Testing

@testable import booksctl

@Suite struct BatchAndIDTests {
    @Test func prefixResolution() {
        #expect(IDResolution.resolve("3F25", candidates: ["3F2504E0"], total: 1) == .found("3F2504E0"))
        #expect(IDResolution.resolve("1", candidates: ["1", "12", "13"], total: 3) == .found("1"), "an exact id wins")
        #expect(IDResolution.resolve("x", candidates: [], total: 0) == .none)
        #expect(IDResolution.resolve("1", candidates: ["13", "12"], total: 12) == .ambiguous(["12", "13"], total: 12))
        let message = IDResolution.ambiguityMessage("1", ["12", "13"], total: 5)
        #expect(message == "id prefix '1' is ambiguous: 5 books match\n  12\n  13\n  … and 3 more")
    }

    @Test func inputLines() throws {
        let text =
            "Dune\tFrank Herbert\r\n\n  \n{\"name\":\"Emma\",\"author\":\"\"}\n{\"id\":\"x\",\"name\":\"\",\"author\":\"A|B\"}\n"
        let drafts = try BookInputParser.parse(text).get()
        #expect(
            drafts == [
                BookDraft(name: "Dune", author: "Frank Herbert"), BookDraft(name: "Emma", author: ""),
                BookDraft(id: "x", name: "", author: "A|B"),
            ])
        #expect(try BookInputParser.parse("").get() == [])
        #expect(
            BookInputParser.parse("a\tb\nno tab here\n")
                == .failure(.init(line: 2, reason: "expected NAME<TAB>AUTHOR (2 fields), found 1")))
        #expect(
            BookInputParser.parse("a\tb\tc")
                == .failure(.init(line: 1, reason: "expected NAME<TAB>AUTHOR (2 fields), found 3")))
        if case .failure(let failure) = BookInputParser.parse("{\"name\":1}") {
            #expect(failure.line == 1)
        } else {
            Issue.record("a JSON line without string fields must fail")
        }
    }

    @Test func badLinesShapeAndEditorForm() throws {
        let bad = [
            BadLine(lineNumber: 19, reason: .wrongFieldCount(4), text: "a|b|c|d"),
            BadLine(lineNumber: 2, reason: .duplicateID("x/y", firstLine: 1), text: "x/y|n|a"),
            BadLine(lineNumber: 3, reason: .tooLong(limit: 10), text: ""),
            BadLine(lineNumber: 4, reason: .missingField(id: "id"), text: "id|n"),
            BadLine(lineNumber: 5, reason: .emptyID, text: "|n|a"),
            BadLine(lineNumber: 6, reason: .invalidUTF8, text: "\u{FFFD}"),
        ]
        #expect(
            BadLineFormat.text(bad[0], file: "books.txt")
                == "books.txt:19: wrong number of fields: expected 3 (id|name|author), found 4: a|b|c|d")
        #expect(
            BadLineFormat.json(bad[1])
                == #"{"line":2,"code":"duplicate-id","message":"duplicate id x/y (first used on line 1)","text":"x/y|n|a"}"#
        )
        // The protocol's shape: line, code, message, text (+ details), and it round-trips.
        let data = try JSONEncoder().encode(bad)
        let object = try JSONDecoder().decode([[String: JSONScalar]].self, from: data)
        #expect(object[0]["line"] == .int(19))
        #expect(object[0]["code"] == .string("wrong-field-count"))
        #expect(object[0]["message"] == .string("wrong number of fields: expected 3 (id|name|author), found 4"))
        #expect(object[0]["text"] == .string("a|b|c|d"))
        #expect(try JSONDecoder().decode([BadLine].self, from: data) == bad)
    }
}

/// A JSON string or integer, to look at encoded objects key by key.
enum JSONScalar: Decodable, Equatable {
    case string(String)
    case int(Int)

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int.self) { self = .int(n) } else { self = .string(try c.decode(String.self)) }
    }
}
