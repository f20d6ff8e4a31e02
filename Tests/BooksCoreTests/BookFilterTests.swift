import Testing

@testable import BooksCore

@Suite struct BookFilterTests {
    let book = Book(id: "B-7", name: "Der Zauberberg", author: "Thomas MANN")

    @Test func ignoringCaseFoldsBothSidesAndKeepsTheOtherOperatorsExact() {
        #expect(BookCondition(.author, .containsIgnoringCase, "mann").matches(book))
        #expect(BookCondition(.name, .containsIgnoringCase, "ZAUBER").matches(book))
        #expect(BookCondition(.id, .containsIgnoringCase, "b-").matches(book))
        #expect(!BookCondition(.author, .contains, "mann").matches(book))
        #expect(BookCondition(.name, .prefix, "Der").matches(book))
        #expect(
            BookFilter([
                BookCondition(.name, .containsIgnoringCase, "berg"),
                BookCondition(.name, .containsIgnoringCase, "der z"),
            ]).matches(book))
        #expect(
            !BookFilter([
                BookCondition(.name, .containsIgnoringCase, "berg"),
                BookCondition(.author, .containsIgnoringCase, "thomas mannx"),
            ]).matches(book))
    }

    @Test func aChangedValueIsFoldedAgainAndTheFoldIsNotPartOfEquality() throws {
        var condition = BookCondition(.author, .containsIgnoringCase, "THOMAS")
        condition.value = "zzz"
        #expect(!condition.matches(book))
        condition.value = "ThOmAs"
        #expect(condition.matches(book))
        #expect(condition == BookCondition(.author, .containsIgnoringCase, "ThOmAs"))
        #expect(condition.hashValue == BookCondition(.author, .containsIgnoringCase, "ThOmAs").hashValue)
    }

    @Test func limitsNameWhatIsTooMuch() {
        let many = BookFilter(Array(repeating: BookCondition(.name, .contains, "a"), count: 65))
        #expect(many.violation() == "a filter may have at most 64 conditions, not 65")
        #expect(BookFilter(Array(repeating: BookCondition(.name, .contains, "a"), count: 64)).violation() == nil)
        let long = BookFilter([BookCondition(.name, .contains, String(repeating: "é", count: 513))])
        #expect(long.violation() == "a filter value may have at most 1024 bytes, not 1026")
    }
}
