import Testing

@Test func placeholder_BooksCoreTests() { #expect(Bool(true)) }
