import BooksCore
import BooksProtocol
import Testing

@testable import BooksClient

/// The context's rules without a daemon: unsaved changes, the save request, fetch merging.
@Suite struct BooksContextStateTests {
    static let dune = VersionedBook(book: Book(id: "1", name: "Dune", author: "Herbert"), version: 4)
    static let emma = VersionedBook(book: Book(id: "2", name: "Emma", author: "Austen"), version: 7)

    func fetched() -> BooksContextState {
        var state = BooksContextState()
        state.absorb([Self.dune, Self.emma])
        return state
    }

    @Test func changesBecomeOneConditionalSaveRequest() throws {
        var state = fetched()
        #expect(!state.hasChanges)
        let temp = state.insert(name: "Walden", author: "Thoreau")
        try state.update("1", name: "Dune Messiah")
        try state.delete("2")
        #expect(state.hasChanges)
        let request = state.request
        #expect(request.inserted == [BookInsertion(tempId: temp, name: "Walden", author: "Thoreau")])
        #expect(request.updated == [BookPatch(id: "1", name: "Dune Messiah", expectedVersion: 4)])
        #expect(request.deleted == [BookDeletion(id: "2", expectedVersion: 7)])
    }

    @Test func unknownAndDeletedBooksCannotBeChanged() throws {
        var state = fetched()
        #expect(throws: BooksContextError.unknownBook("9")) { try state.update("9", name: "x") }
        #expect(throws: BooksContextError.unknownBook("9")) { try state.delete("9") }
        try state.delete("1")
        #expect(throws: BooksContextError.deletedBook("1")) { try state.update("1", name: "x") }
    }

    @Test func insertionsAreEditedAndDroppedInPlace() throws {
        var state = fetched()
        let a = state.insert(name: "A", author: "x")
        let b = state.insert(name: "B", author: "y")
        #expect(a != b)
        try state.update(a, author: "z")
        try state.delete(b)
        #expect(state.request.inserted == [BookInsertion(tempId: a, name: "A", author: "z")])
        #expect(state.request.deleted.isEmpty)
    }

    @Test func settingABookBackDropsTheChangeAndRollbackDropsAll() throws {
        var state = fetched()
        try state.update("1", name: "X")
        try state.update("1", name: "Dune")
        #expect(!state.hasChanges)
        _ = state.insert(name: "A", author: "x")
        try state.update("2", author: "J. Austen")
        try state.delete("1")
        state.rollback()
        #expect(!state.hasChanges)
        #expect(state.request.updated.isEmpty && state.request.deleted.isEmpty && state.request.inserted.isEmpty)
    }

    @Test func aRefetchKeepsTheBaseVersionOfAChangedBook() throws {
        var state = fetched()
        try state.update("1", name: "Mine")
        state.absorb([VersionedBook(book: Book(id: "1", name: "Theirs", author: "Herbert"), version: 9)])
        #expect(state.request.updated.first?.expectedVersion == 4, "the save must still see the conflict")
        state.absorb([VersionedBook(book: Book(id: "2", name: "Emma", author: "Austen"), version: 8)])
        try state.delete("2")
        #expect(state.request.deleted.first?.expectedVersion == 8, "unchanged books take the fresh version")
    }

    @Test func aSuccessfulSaveClearsWhatItSentAndKeepsLaterChanges() throws {
        var state = fetched()
        let temp = state.insert(name: "Walden", author: "Thoreau")
        try state.update("1", name: "Dune Messiah")
        try state.delete("2")
        let sent = state.request
        try state.update("1", author: "Frank Herbert")  // while the save runs
        let result = BookSaveResult(
            remap: [temp: "P1"],
            books: [
                VersionedBook(book: Book(id: "P1", name: "Walden", author: "Thoreau"), version: 10),
                VersionedBook(book: Book(id: "1", name: "Dune Messiah", author: "Herbert"), version: 10),
            ], epoch: "E", seq: 10)
        state.saved(result, sent: sent)
        #expect(state.request.inserted.isEmpty && state.request.deleted.isEmpty)
        #expect(
            state.request.updated == [
                BookPatch(id: "1", author: "Frank Herbert", expectedVersion: 10)
            ])
        #expect(throws: BooksContextError.unknownBook("2")) { try state.delete("2") }
        try state.update("P1", name: "Walden Pond")  // the permanent id is now known
    }

    @Test func fetchesSeeUnsavedChanges() throws {
        var state = fetched()
        state.absorb([VersionedBook(book: Book(id: "3", name: "Ulysses", author: "Joyce"), version: 1)])
        let temp = state.insert(name: "Beloved", author: "Morrison")
        try state.update("3", name: "Dubliners")
        try state.delete("2")
        let server = [Self.dune.book, Self.emma.book, Book(id: "3", name: "Ulysses", author: "Joyce")]
        #expect(
            state.merged(server: server, query: BookQuery()).map(\.name) == ["Dune", "Dubliners", "Beloved"])
        let byName = BookQuery(sort: BookSort(.name), limit: 2, offset: 1)
        #expect(state.merged(server: server, query: byName).map(\.id) == ["3", "1"])
        let joyce = BookQuery(filter: BookFilter([BookCondition(.name, .prefix, "Du")]))
        #expect(state.merged(server: [], query: joyce).map(\.id) == ["3"], "a changed book that now matches")
        #expect(state.merged(server: server, query: BookQuery(offset: 2)).map(\.id) == [temp])
    }

    @Test func theServerWindowGrowsByThePendingChanges() throws {
        var state = fetched()
        let query = BookQuery(sort: BookSort(.name), limit: 5, offset: 10)
        #expect(state.serverQuery(for: query) == query, "no changes: the daemon answers the query itself")
        try state.update("1", name: "X")
        try state.delete("2")
        #expect(state.serverQuery(for: query) == BookQuery(sort: BookSort(.name), limit: 17, offset: 0))
        #expect(state.serverQuery(for: BookQuery(limit: 3)) == BookQuery(), "file order: the whole file")
    }

    @Test func conflictsFromTheDaemonBecomeATypedError() {
        let conflicts = [BookConflict(id: "1", current: nil, currentVersion: nil, message: "gone")]
        let error = BooksContextError.from(.daemon(ProtocolError(.conflict, "m", conflicts: conflicts)))
        #expect(error == .conflict(conflicts))
        #expect(error.description.contains("1 (no longer in the file)"))
        #expect(BooksContextError.from(.connectionClosed) == .client(.connectionClosed))
    }
}

/// Resolving a conflict in favour of the context.
@Suite struct BooksContextRebaseTests {
    @Test func aRebasedChangeIsSavedOverTheCurrentVersionAndAGoneBookIsDropped() throws {
        var state = BooksContextState()
        state.absorb([BooksContextStateTests.dune, BooksContextStateTests.emma])
        try state.update("1", name: "Mine")
        try state.delete("2")
        state.rebase(on: [
            BookConflict(
                id: "1", current: Book(id: "1", name: "Theirs", author: "Herbert"), currentVersion: 11, message: ""),
            BookConflict(id: "2", current: nil, currentVersion: nil, message: ""),
        ])
        #expect(state.request.updated == [BookPatch(id: "1", name: "Mine", expectedVersion: 11)])
        #expect(state.request.deleted.isEmpty)
        #expect(throws: BooksContextError.unknownBook("2")) { try state.update("2", name: "x") }
    }
}
