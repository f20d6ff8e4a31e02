import Testing

@Test func placeholder_BooksProtocolTests() { #expect(Bool(true)) }
