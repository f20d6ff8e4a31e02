import BooksClient
import BooksCore
import BooksProtocol
import Testing

@testable import booksctl

/// `booksctl edit`'s pure part: what an edited text changes, the conditional save, and rebasing
/// onto books others changed meanwhile.
@Suite struct EditPlanTests {
    static let base = [
        VersionedBook(book: Book(id: "b1", name: "Dune", author: "Frank Herbert"), version: 3),
        VersionedBook(book: Book(id: "b2", name: "Emma", author: "Jane Austen"), version: 5),
        VersionedBook(book: Book(id: "b3", name: "Ulysses", author: "James Joyce"), version: 7),
    ]

    static func plan(_ edit: (String) -> String) throws -> EditPlan {
        let written = EditPlan.text(of: base, store: nil, seq: 9)
        let edited = Array(edit(String(decoding: written, as: UTF8.self)).utf8)
        return try EditPlan.plan(base: base, written: written, edited: edited).get()
    }

    @Test func editedRowsBecomeAConditionalSave() throws {
        let plan = try Self.plan {
            $0.replacing("b1|Dune|Frank Herbert", with: "b1|Dune|F. Herbert")
                .replacing("b3|Ulysses|James Joyce\n", with: "") + "# a note\nMiddlemarch|George Eliot\n"
        }
        let request = plan.request(expecting: [:])
        #expect(request.updated == [BookPatch(id: "b1", name: "Dune", author: "F. Herbert", expectedVersion: 3)])
        #expect(request.deleted == [BookDeletion(id: "b3", expectedVersion: 7)])
        #expect(request.inserted == [BookInsertion(tempId: "new-1", name: "Middlemarch", author: "George Eliot")])
        let reordered = try Self.plan { text in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.filter { $0.hasPrefix("#") }.joined(separator: "\n") + "\n"
                + lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }.reversed().joined(separator: "\n") + "\n"
        }
        #expect(reordered.isEmpty, "order and comments are not saved")
    }

    @Test func editTakesNoArgumentsButAStore() throws {
        #expect(try CommandLineParser.parse(["edit"]).command == .edit)
        #expect(try CommandLineParser.parse(["edit", "--store", "to-read"]).stores == ["to-read"])
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["edit", "books.txt"]) }
    }

    @Test func badLinesAndUnknownIDsAreRefused() {
        let written = EditPlan.text(of: Self.base, store: nil, seq: 9)
        let bad = EditPlan.plan(base: Self.base, written: written, edited: written + Array("x|y|z|w\n".utf8))
        guard case .failure(.badLines(let lines)) = bad else {
            Issue.record("expected bad lines, got \(bad)")
            return
        }
        #expect(lines.count == 1)
        let unknown = EditPlan.plan(base: Self.base, written: written, edited: written + Array("b9|New|One\n".utf8))
        guard case .failure(.unknownIDs(let ids)) = unknown else {
            Issue.record("expected an unknown id, got \(unknown)")
            return
        }
        #expect(ids == ["b9"])
    }

    @Test func rebasingMergesFieldsAndKeepsTheEditorsValueOnAConflict() throws {
        let plan = try Self.plan {
            $0.replacing("b1|Dune|Frank Herbert", with: "b1|Dune|F. Herbert")
                .replacing("b2|Emma|Jane Austen", with: "b2|Emma|J. Austen")
        }
        let rebase = plan.rebased(
            onto: [
                BookConflict(
                    id: "b1", current: Book(id: "b1", name: "Dune (1965)", author: "Frank Herbert"),
                    currentVersion: 10, message: ""),
                BookConflict(
                    id: "b2", current: Book(id: "b2", name: "Emma", author: "JANE"), currentVersion: 11, message: ""),
            ], expected: [:])
        let request = rebase.plan.request(expecting: rebase.expected)
        #expect(
            request.updated == [
                BookPatch(id: "b1", name: "Dune (1965)", author: "F. Herbert", expectedVersion: 10),
                BookPatch(id: "b2", name: "Emma", author: "J. Austen", expectedVersion: 11),
            ])
        #expect(rebase.conflicts.map(\.id) == ["b2"])
        #expect(rebase.conflicts.first?.theirsValue == "JANE")
    }

    @Test func deleteAgainstChangeKeepsTheChangedBook() throws {
        let plan = try Self.plan {
            $0.replacing("b1|Dune|Frank Herbert\n", with: "").replacing(
                "b2|Emma|Jane Austen", with: "b2|Emma!|Jane Austen")
        }
        let rebase = plan.rebased(
            onto: [
                BookConflict(
                    id: "b1", current: Book(id: "b1", name: "Dune!", author: "Frank Herbert"), currentVersion: 10,
                    message: ""),
                BookConflict(id: "b2", current: nil, currentVersion: nil, message: ""),
            ], expected: [:])
        #expect(rebase.plan.isEmpty, "the others' change of b1 stands, b2 is inserted again")
        #expect(rebase.reinserted == [Book(id: "b2", name: "Emma!", author: "Jane Austen")])
        #expect(Set(rebase.conflicts.map(\.kind)) == [.deletedByMine, .deletedByTheirs])
    }
}
