import Testing

@Test func placeholder_BooksStoreTests() { #expect(Bool(true)) }
