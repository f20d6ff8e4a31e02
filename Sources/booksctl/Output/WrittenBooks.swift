import BooksCore
import BooksProtocol

/// The output of `get`, `add`, `update` and `delete` with `--json`: one
/// `{"id","name","author","version"}` object per book and line (pure).
enum WrittenBooks {
    /// One JSON line per book; `versions` parallel to `books` (a missing version is omitted).
    static func jsonLines(_ books: [Book], versions: [UInt64]?) -> [String] {
        books.enumerated().map { index, book in
            var pairs: [(String, String)] = [
                ("id", JSONLine.string(book.id)), ("name", JSONLine.string(book.name)),
                ("author", JSONLine.string(book.author)),
            ]
            if let versions, index < versions.count { pairs.append(("version", String(versions[index]))) }
            return JSONLine.object(pairs)
        }
    }

    /// The books and versions of a write reply.
    static func of(_ result: ReplyResult) -> (books: [Book], versions: [UInt64]?) {
        (result.books ?? [], result.versions)
    }
}
