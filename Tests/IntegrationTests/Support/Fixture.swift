/// A book as the tests see it.
struct TestBook: Hashable, CustomStringConvertible {
    var id: String
    var name: String
    var author: String
    var description: String { "\(id)|\(name)|\(author)" }
}

/// Parses `id|name|author` rows (no escapes in test data); other lines are ignored.
func parseBooks(_ text: String) -> [String: TestBook] {
    var books: [String: TestBook] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
        let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
        if trimmed.hasPrefix("#") { continue }
        let fields = trimmed.split(separator: "|", omittingEmptySubsequences: false)
        guard fields.count == 3, !fields[0].isEmpty else { continue }
        books[String(fields[0])] = TestBook(id: String(fields[0]), name: String(fields[1]), author: String(fields[2]))
    }
    return books
}

/// Deterministic UUID-shaped ids for fixture rows.
func fixtureID(_ n: Int) -> String {
    let digits = String(n)
    return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
}

enum Fixture {
    /// Row 1 is `Dune|Frank Herbert`; rows 2…count are `Book N|Author N`.
    static func books(count: Int = 20) -> [TestBook] {
        (1...count).map { n in
            n == 1
                ? TestBook(id: fixtureID(1), name: "Dune", author: "Frank Herbert")
                : TestBook(id: fixtureID(n), name: "Book \(n)", author: "Author \(n)")
        }
    }

    static func text(_ books: [TestBook]) -> String {
        books.map { $0.description + "\n" }.joined()
    }
}
