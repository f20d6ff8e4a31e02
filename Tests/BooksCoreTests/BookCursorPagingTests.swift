import Testing

@testable import BooksCore

/// Pages of a cursor (`offset`/`limit`) put together are the whole list, in every kind of source:
/// all book lines (comments and blank lines between), a filter's matches, a sort, held books.
@Suite struct BookCursorPagingTests {
    /// 50 books with comments and blank lines between, and two held books (their rows broken).
    static func context() -> BookLedger {
        var text = "# books\n"
        for i in 0..<50 { text += "b\(i)|Book \(i)|Author \(i % 7)\n" + (i % 10 == 0 ? "\n# more\n" : "") }
        var context = BookLedger(document: BookDocument(parsing: Array(text.utf8)))
        context.held = [
            "h1": Book(id: "h1", name: "Held 1", author: "Author 1"),
            "h2": Book(id: "h2", name: "Held 2", author: "Author 3"),
        ]
        return context
    }

    static func ids(_ context: BookLedger, _ query: BookQuery) throws -> [String] {
        var cursor = try BookCursor(context: context, query: query)
        return ids(&cursor)
    }

    static func ids(_ cursor: inout BookCursor) -> [String] {
        var ids: [String] = []
        while !cursor.isExhausted {
            cursor.next {
                ids.append($0.id)
                return true
            }
        }
        return ids
    }

    @Test(arguments: [
        BookFilter.all, BookFilter([BookCondition(.author, .contains, "Author 1")]),
    ])
    func pagesMakeTheWholeList(filter: BookFilter) throws {
        let context = Self.context()
        for sort in [nil, BookSort(.name, ascending: false)] {
            let whole = try Self.ids(context, BookQuery(filter: filter, sort: sort))
            #expect(whole.count == (filter.isEmpty ? 52 : 8))
            for size in [1, 3, 7, 100] {
                var paged: [String] = []
                var offset = 0
                while offset <= whole.count {
                    paged += try Self.ids(context, BookQuery(filter: filter, sort: sort, limit: size, offset: offset))
                    offset += size
                }
                #expect(paged == whole, "filter \(filter), sort \(String(describing: sort)), pages of \(size)")
            }
            #expect(try Self.ids(context, BookQuery(filter: filter, sort: sort, offset: whole.count + 5)) == [])
        }
    }

    /// A cursor over a list of books (a state rebuilt from the history: `list --at`) yields what
    /// a cursor over the same books in a file yields, for every filter, sort and page.
    @Test(arguments: [
        BookFilter.all, BookFilter([BookCondition(.author, .contains, "Author 1")]),
    ])
    func aCursorOverBooksMatchesOneOverTheFile(filter: BookFilter) throws {
        let context = Self.context()
        let books = try context.query(BookQuery()).books
        #expect(books.count == 52)
        for sort in [nil, BookSort(.name, ascending: false)] {
            for (limit, offset) in [(nil, 0), (5, 0), (5, 10), (100, 3), (nil, 60)] as [(Int?, Int)] {
                let query = BookQuery(filter: filter, sort: sort, limit: limit, offset: offset)
                var cursor = try BookCursor(books: books, query: query)
                #expect(Self.ids(&cursor) == (try Self.ids(context, query)), "\(query)")
                #expect(cursor.total == (try BookCursor(context: context, query: query)).total)
            }
        }
    }
}
