import BooksClient
import BooksCore
import Testing

@Suite struct LiveQueryStateTests {
    let a = Book(id: "a", name: "Dune", author: "Herbert")
    let b = Book(id: "b", name: "Emma", author: "Austen")
    let c = Book(id: "c", name: "Persuasion", author: "Austen")

    func change(_ seq: UInt64, _ changes: ChangeSet) -> FeedItem {
        .change(FeedChange(epoch: "E", seq: seq, source: .file, changes: changes))
    }

    @Test func emitsAtStartAndOnlyOnRelevantChanges() {
        let query = BookQuery(
            filter: BookFilter([BookCondition(.author, .containsIgnoringCase, "austen")]),
            sort: BookSort(.name, ascending: false), limit: 1)
        var state = LiveQueryState(query: query)
        #expect(state.apply(.heartbeat(.init(epoch: "E", seq: 0))) == nil)
        #expect(state.apply(.snapshot(FeedSnapshot(epoch: "E", seq: 1, books: [a, b]))) == [b])
        // Outside the filter: nothing.
        #expect(
            state.apply(
                change(2, ChangeSet(updated: [BookUpdate(old: a, new: Book(id: "a", name: "X", author: "Herbert"))])))
                == nil)
        // Inside the filter, and first in the order: emitted.
        #expect(state.apply(change(3, ChangeSet(inserted: [c]))) == [c])
        // Inside the filter but past the limit: the result is unchanged, nothing emitted.
        #expect(
            state.apply(
                change(4, ChangeSet(updated: [BookUpdate(old: b, new: Book(id: "b", name: "Emma!", author: "Austen"))]))
            ) == nil)
        // Replay: nothing.
        #expect(state.apply(change(3, ChangeSet(inserted: [c]))) == nil)
        #expect(state.apply(change(5, ChangeSet(deleted: [c]))) == [Book(id: "b", name: "Emma!", author: "Austen")])
    }

    @Test func emptyStartIsEmitted() {
        var state = LiveQueryState(query: BookQuery())
        #expect(state.apply(.snapshot(FeedSnapshot(epoch: "E", seq: 1, books: []))) == [])
        #expect(state.apply(.snapshot(FeedSnapshot(epoch: "E", seq: 1, books: []))) == nil)
    }
}
