import BooksTestSupport
import Testing

@testable import BooksCore

/// A query stops once its budget is spent (no request may occupy the engine for long).
@Suite struct QueryBudgetTests {
    /// 100 books `i|Book i|Author i` (i = 0…99).
    let context = BookLedger(
        document: BookDocument(parsing: Array((0..<100).map { "\($0)|Book \($0)|Author \($0)\n" }.joined().utf8)))
    let anyBook = BookFilter([BookCondition(.name, .contains, "Book")])

    @Test func withinTheBudgetTheResultIsTheUnlimitedOne() throws {
        let query = BookQuery(
            filter: BookFilter([BookCondition(.author, .containsIgnoringCase, "AUTHOR 1")]),
            sort: BookSort(.name, ascending: false), limit: 3, offset: 1)
        let expected = query.apply(to: context.books)
        let clock = SteppingClock()
        let limited = try context.query(query, budget: clock.budget(milliseconds: 1000))
        #expect(limited.books == expected)
        #expect(limited.books.map(\.id) == ["18", "17", "16"])
        #expect(limited.total == 11)
        #expect(clock.reads > 100)  // the clock was read: the budget was checked
        #expect(try context.query(query).books == expected)
    }

    @Test func theFilterStopsAtTheFirstCheckPastTheLimit() {
        let clock = SteppingClock()  // read 0 at the start, then k ms at the k-th book
        #expect {
            try context.books(matching: anyBook, budget: clock.budget(milliseconds: 10))
        } throws: { error in
            guard let exceeded = error as? QueryBudgetExceeded else { return false }
            return exceeded.examinedBooks == 11 && exceeded.totalBooks == 100 && exceeded.elapsed == .milliseconds(11)
                && exceeded.limit == .milliseconds(10)
                && exceeded.description.contains("budget of 10 ms (query_budget_ms), having filtered 11 of 100 books")
        }
    }

    @Test func costlyConditionsReadTheClockSoonerThanCheapOnes() throws {
        // Checks every 1,000 books or 2,000 units of work: 100 cheap `equals` books need no check,
        // a 100-byte `contains` value on ~8-byte names (~900 units a book) one every third book.
        let cheap = SteppingClock()
        _ = try context.books(
            matching: BookFilter([BookCondition(.id, .equals, "7")]),
            budget: cheap.budget(milliseconds: 1000, booksPerCheck: 1000, workPerCheck: 2000))
        #expect(cheap.reads == 1)  // the start only
        let costly = SteppingClock()
        let long = BookFilter([BookCondition(.name, .contains, String(repeating: "x", count: 100))])
        #expect(
            try context.books(
                matching: long, budget: costly.budget(milliseconds: 1000, booksPerCheck: 1000, workPerCheck: 2000)
            ).isEmpty)
        #expect(costly.reads > 30)
    }

    @Test func aCursorFiltersWithinTheBudgetWhenMadeAndReadsOnlyTheChosenBooks() throws {
        let clock = SteppingClock()
        #expect(throws: QueryBudgetExceeded.self) {
            try BookCursor(context: context, query: BookQuery(filter: anyBook), budget: clock.budget(milliseconds: 10))
        }
        let query = BookQuery(filter: BookFilter([BookCondition(.author, .contains, "Author 1")]), limit: 4, offset: 2)
        let counting = SteppingClock()
        var cursor = try BookCursor(context: context, query: query, budget: counting.budget(milliseconds: 60_000))
        let readsWhenMade = counting.reads
        var books: [Book] = []
        cursor.next {
            books.append($0)
            return true
        }
        #expect(books == query.apply(to: context.books) && cursor.total == 11 && cursor.isExhausted)
        #expect(counting.reads == readsWhenMade, "reading the cursor evaluated nothing more")
    }

    @Test func sortingIsChargedToo() {
        let clock = SteppingClock()
        let sorted = BookQuery(sort: BookSort(.author))  // no filter: only the sort costs
        #expect(throws: QueryBudgetExceeded.self) {
            try context.query(sorted, budget: clock.budget(milliseconds: 5, workPerCheck: 1))
        }
    }

    @Test func aPlainListAndAnUnlimitedBudgetNeverReadTheClock() throws {
        let clock = SteppingClock()
        let all = try context.query(BookQuery(limit: 5), budget: clock.budget(milliseconds: 0))
        #expect(all.total == 100)
        #expect(clock.reads == 1)  // the meter's start, nothing after
        var unlimited = QueryBudget.unlimited
        unlimited.now = clock.now
        #expect(try context.books(matching: anyBook, budget: unlimited).count == 100)
        #expect(clock.reads == 1)
    }
}
