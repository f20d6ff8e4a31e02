import BooksCore
import Testing

@testable import BooksClient

/// `OrderedBooks` against a plain array model: order, re-inserts after removal, compaction.
@Suite struct OrderedBooksTests {
    @Test func matchesAnArrayModelThroughRemovalsAndCompactions() {
        var books = OrderedBooks()
        var model: [Book] = []
        var state: UInt64 = 0x1234_5678
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for round in 0..<3_000 {
            let id = "b\(next(300))"
            let book = Book(id: id, name: "N\(round)", author: "A")
            if next(3) == 0 {
                // Remove a handful at once (one change set's deletes).
                let ids = Set((0..<(1 + next(4))).map { _ in "b\(next(300))" })
                books.remove(ids)
                model.removeAll { ids.contains($0.id) }
            } else {
                books.upsert(book)
                if let k = model.firstIndex(where: { $0.id == id }) { model[k] = book } else { model.append(book) }
            }
            #expect(books.count == model.count)
        }
        #expect(books.books == model)
        #expect(books.byID == Dictionary(uniqueKeysWithValues: model.map { ($0.id, $0) }))
        #expect(books == OrderedBooks(model), "equality is by content and order, not by internal holes")
    }
}
