import BooksTestSupport

/// The layout every daemon test directory shares: `books.txt`, `booksd.sock` and `booksd.log`
/// side by side in one `TemporaryDirectory` (the harness in this folder puts them in `data/` and
/// `logs/` instead).
extension TemporaryDirectory {
    /// A fresh `/var/tmp/booksd-rel-NAME-XXXXXX` (the fault suite's scratch directories).
    static func scratch(_ name: String) -> TemporaryDirectory {
        do { return try TemporaryDirectory(prefix: "booksd-rel-\(name)") } catch { preconditionFailure("\(error)") }
    }

    /// `books.txt` in the directory.
    var bookFile: String { file("books.txt") }
    /// `booksd.sock` in the directory.
    var socket: String { file("booksd.sock") }
    /// `booksd.log` in the directory.
    var log: String { file("booksd.log") }
}
