import Glibc

func readFileBytes(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        result += buffer[0..<n]
    }
    return result
}

func readFile(_ path: String) -> String? {
    readFileBytes(path).map { String(decoding: $0, as: UTF8.self) }
}

/// Writes `contents` with open(O_TRUNC)/write/close (used only for set-up, before watching matters).
func writeFile(_ path: String, _ contents: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw HarnessError("open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let bytes = Array(contents.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
        guard n > 0 else { throw HarnessError("write \(path) failed") }
        offset += n
    }
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

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
            n == 1 ? TestBook(id: fixtureID(1), name: "Dune", author: "Frank Herbert")
                   : TestBook(id: fixtureID(n), name: "Book \(n)", author: "Author \(n)")
        }
    }

    static func text(_ books: [TestBook]) -> String {
        books.map { $0.description + "\n" }.joined()
    }
}
