import Testing

@Test func placeholder_BooksClientTests() { #expect(Bool(true)) }
