import Testing

@Test func placeholder_BooksDaemonTests() { #expect(Bool(true)) }
