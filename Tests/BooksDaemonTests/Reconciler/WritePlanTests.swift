import Testing
import BooksCore
import BooksProtocol
@testable import BooksDaemon

@Suite struct WritePlanTests {
    let context: BookContext = {
        var c = BookContext(document: BookDocument(parsing: Array("1|Dune|Herbert\n2|Emma|Austen\n".utf8)), epoch: "E")
        c.apply(bytes: Array("1|Dune|Herbert\n2|Emma|J. Austen\n".utf8), source: .file)   // book 2 is at version 1
        return c
    }()

    @Test func acceptedWritesShareOneSave() {
        let plan = WritePlan<Int>([(1, .insert([BookDraft(name: "Ulysses", author: "Joyce")])),
                                   (2, .update([BookPatch(id: "1", author: "F. Herbert")])),
                                   (3, .delete(ids: ["2"], expectedVersions: [1]))], context: context)
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
        let plan = WritePlan<Int>([(1, .delete(ids: ["nope"], expectedVersions: nil)),
                                   (2, .insert([BookDraft(id: "1", name: "A", author: "B")])),
                                   (3, .insert([BookDraft(id: "#x", name: "A", author: "B")]))], context: context)
        #expect(plan.refused.map(\.error.code) == [.notFound, .conflict, .invalidArgument])
    }

    @Test func idsWithCharactersTheFormatEscapesAreRefused() {
        let ids = ["x|y", "back\\slash", "tab\tbed", "line\nbreak", "cr\r\nlf", " lead"]
        let plan = WritePlan<Int>(ids.enumerated().map { ($0.offset, .insert([BookDraft(id: $0.element, name: "A", author: "B")])) },
                                  context: context)
        #expect(plan.accepted.isEmpty)
        #expect(plan.refused.map(\.error.code) == Array(repeating: .invalidArgument, count: ids.count))
        let fine = WritePlan<Int>([(1, .insert([BookDraft(id: "ok-id_1.2:3", name: "A|B", author: "C\\D")]))], context: context)
        #expect(fine.refused.isEmpty)
    }

    @Test func aBatchIsAllOrNothing() {
        let plan = WritePlan<Int>([(1, .update([BookPatch(id: "1", name: "ok"), BookPatch(id: "missing", name: "x")]))], context: context)
        #expect(plan.accepted.isEmpty)
        #expect(plan.save.updated.isEmpty)
    }

    @Test func secondWriteToTheSameBookWaitsForTheNextGroup() {
        let plan = WritePlan<Int>([(1, .update([BookPatch(id: "1", name: "first")])),
                                   (2, .update([BookPatch(id: "1", name: "second")]))], context: context)
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

    @Test func missingEmptyAndDrasticShrinksWait() {
        #expect(rule.reason(oldBytes: 100, oldBookCount: 3, newBytes: nil) != nil)
        #expect(rule.reason(oldBytes: 100, oldBookCount: 3, newBytes: []) != nil)
        #expect(rule.reason(oldBytes: 100, oldBookCount: 3, newBytes: Array("# all gone\n".utf8)) != nil)
        #expect(rule.reason(oldBytes: 1000, oldBookCount: 20, newBytes: Array(repeating: 0x7C, count: 400)) != nil)
    }

    @Test func ordinaryDeletesAndEmptyStartsDoNot() {
        #expect(rule.reason(oldBytes: 1000, oldBookCount: 20, newBytes: Array(repeating: 0x7C, count: 950)) == nil)
        #expect(rule.reason(oldBytes: 0, oldBookCount: 0, newBytes: []) == nil)
        #expect(rule.reason(oldBytes: 40, oldBookCount: 2, newBytes: Array("1|A|B\n".utf8)) == nil)
    }
}
