import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

@Suite struct WritePlanTests {
    let context: BookLedger = {
        var c = BookLedger(document: BookDocument(parsing: Array("1|Dune|Herbert\n2|Emma|Austen\n".utf8)), epoch: "E")
        c.apply(bytes: Array("1|Dune|Herbert\n2|Emma|J. Austen\n".utf8), source: .file)  // book 2 is at version 1
        return c
    }()

    @Test func acceptedWritesShareOneSave() {
        let plan = WritePlan<Int>(
            [
                (1, .insert([BookDraft(name: "Ulysses", author: "Joyce")])),
                (2, .update([BookPatch(id: "1", author: "F. Herbert")])),
                (3, .delete(ids: ["2"], expectedVersions: [1])),
            ], context: context)
        #expect(plan.refused.isEmpty)
        #expect(plan.accepted.map(\.ticket) == [1, 2, 3])
        #expect(plan.save.inserted.map(\.name) == ["Ulysses"])
        #expect(plan.save.updated == [Book(id: "1", name: "Dune", author: "F. Herbert")])
        #expect(plan.save.deleted == ["2"])
    }

    @Test func staleExpectedVersionIsAConflictWithCurrentValues() {
        let plan = WritePlan<Int>([(1, .update([BookPatch(id: "2", name: "X", expectedVersion: 0)]))], context: context)
        #expect(plan.accepted.isEmpty)
        let error = plan.refused.first?.error
        #expect(error?.code == .conflict)
        #expect(error?.current == Book(id: "2", name: "Emma", author: "J. Austen"))
        #expect(error?.currentVersion == 1)
    }

    @Test func unknownIDsAndDuplicateInsertsAreRefused() {
        let plan = WritePlan<Int>(
            [
                (1, .delete(ids: ["nope"], expectedVersions: nil)),
                (2, .insert([BookDraft(id: "1", name: "A", author: "B")])),
                (3, .insert([BookDraft(id: "#x", name: "A", author: "B")])),
            ], context: context)
        #expect(plan.refused.map(\.error.code) == [.notFound, .conflict, .invalidArgument])
    }

    @Test func idsWithCharactersTheFormatEscapesAreRefused() {
        let ids = ["x|y", "back\\slash", "tab\tbed", "line\nbreak", "cr\r\nlf", " lead"]
        let plan = WritePlan<Int>(
            ids.enumerated().map { ($0.offset, .insert([BookDraft(id: $0.element, name: "A", author: "B")])) },
            context: context)
        #expect(plan.accepted.isEmpty)
        #expect(plan.refused.map(\.error.code) == Array(repeating: .invalidArgument, count: ids.count))
        let fine = WritePlan<Int>(
            [(1, .insert([BookDraft(id: "ok-id_1.2:3", name: "A|B", author: "C\\D")]))], context: context)
        #expect(fine.refused.isEmpty)
    }

    @Test func aBatchIsAllOrNothing() {
        let plan = WritePlan<Int>(
            [(1, .update([BookPatch(id: "1", name: "ok"), BookPatch(id: "missing", name: "x")]))], context: context)
        #expect(plan.accepted.isEmpty)
        #expect(plan.save.updated.isEmpty)
    }

    @Test func secondWriteToTheSameBookWaitsForTheNextGroup() {
        let plan = WritePlan<Int>(
            [
                (1, .update([BookPatch(id: "1", name: "first")])),
                (2, .update([BookPatch(id: "1", name: "second")])),
            ], context: context)
        #expect(plan.accepted.map(\.ticket) == [1])
        #expect(plan.deferred.map(\.ticket) == [2])
    }

    @Test func heldBooksCannotBeWrittenByClients() {
        var c = context
        c.apply(bytes: Array("1|Dune\n2|Emma|J. Austen\n".utf8), source: .file)
        let plan = WritePlan<Int>([(1, .update([BookPatch(id: "1", name: "x")]))], context: c)
        #expect(plan.refused.first?.error.code == .conflict)
    }
}

@Suite struct DestructiveChangeGuardTests {
    let rule = DestructiveChangeGuard()

    /// The rule's answer for `old` (holding `books` books) changed to `new`, given as a splice.
    func reason(_ old: [UInt8], books: Int, _ new: [UInt8]) -> String? {
        rule.reason(old: old, oldBookCount: books, splice: ByteSplice(from: old, to: new))
    }

    func rows(_ count: Int) -> [UInt8] {
        Array((0..<count).map { "\($0)|Title \($0)|Author\n" }.joined().utf8)
    }

    @Test func emptyPipelessAndDrasticShrinksWait() {
        #expect(reason(rows(3), books: 3, []) != nil)
        #expect(reason(rows(3), books: 3, Array("# all gone\n".utf8)) != nil)
        // The pipes left are in the unchanged prefix or suffix, or in the replacement: all count.
        #expect(reason(rows(20), books: 20, Array(rows(20).prefix(rows(20).count / 3))) != nil)
        #expect(reason(Array("1|A|B\n# x\n".utf8), books: 1, Array("# x\n".utf8)) != nil)
    }

    @Test func ordinaryDeletesAndEmptyStartsDoNot() {
        let twenty = rows(20)
        #expect(reason(twenty, books: 20, Array(twenty.dropLast(20))) == nil)
        #expect(reason([], books: 0, []) == nil)
        #expect(reason(Array("1|A|B\n2|C|D\n".utf8), books: 2, Array("1|A|B\n".utf8)) == nil)
        #expect(reason(Array("# x\n1|A|B\n".utf8), books: 1, Array("# x\n2|C|D\n".utf8)) == nil)
    }
}

extension WritePlanTests {
    @Test(arguments: ["a\u{1B}]0;pwned\u{07}", "x\u{85}y", "evil\u{202E}txt.exe", "\u{2066}id"])
    func idsWithControlOrBidiCharactersAreRefused(id: String) {
        let plan = WritePlan<Int>([(1, .insert([BookDraft(id: id, name: "A", author: "B")]))], context: context)
        #expect(plan.accepted.isEmpty)
        #expect(plan.refused.first?.error.code == .invalidArgument)
        #expect(plan.refused.first?.error.message.contains("control or bidi character U+") == true)
    }
}
