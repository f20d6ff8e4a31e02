import BooksCore

/// One-line JSON objects with a fixed key order (JSONEncoder does not promise one).
enum JSONLine {
    /// `text` as a JSON string literal (see `BooksCore.JSONText`).
    static func string(_ text: String) -> String { JSONText.string(text) }

    /// An object from `(key, already-encoded value)` pairs, in the given order, on one line.
    static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
