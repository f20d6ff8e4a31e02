/// A line of the book file that is not a book, a comment or a blank line.
///
/// Bad lines are reported, never dropped: every rewrite keeps them byte-for-byte at their place.
/// Encoded as `{"line","code","message","text"}` plus the reason's details (`fields`; `id`,
/// `firstLine`; `limit`), the shape docs/PROTOCOL.md documents (see `BadLine+Codable.swift`).
public struct BadLine: Sendable, Hashable {
    /// The 1-based line number in the file as last read.
    public var lineNumber: Int
    /// Why the line is not a book.
    public var reason: BadLineReason
    /// The line's text (invalid UTF-8 replaced by U+FFFD, cut to 200 characters for display).
    public var text: String

    /// Creates a bad-line report.
    public init(lineNumber: Int, reason: BadLineReason, text: String) {
        self.lineNumber = lineNumber
        self.reason = reason
        self.text = text
    }
}

/// Why a line is not a book.
public enum BadLineReason: Sendable, Hashable, CustomStringConvertible {
    /// The row does not have three `|`-separated fields (or two, for a new book without id).
    case wrongFieldCount(Int)
    /// The id field is empty.
    case emptyID
    /// The line is not valid UTF-8.
    case invalidUTF8
    /// Another row earlier in the file has the same id.
    case duplicateID(String, firstLine: Int)
    /// The line is longer than the configured limit (bytes).
    case tooLong(limit: Int)
    /// A two-field row whose first field is a known id, or looks like an id: a slip, not a new book.
    case missingField(id: String)

    /// A human-readable reason.
    public var description: String {
        switch self {
        case .wrongFieldCount(let n): return "wrong number of fields: expected 3 (id|name|author), found \(n)"
        case .emptyID: return "empty id"
        case .invalidUTF8: return "not valid UTF-8"
        case .duplicateID(let id, let first): return "duplicate id \(id) (first used on line \(first))"
        case .tooLong(let limit): return "line too long (over \(limit) bytes)"
        case .missingField(let id): return "row of known id \(id) lacks a field (expected id|name|author)"
        }
    }

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .wrongFieldCount: return "wrong-field-count"
        case .emptyID: return "empty-id"
        case .invalidUTF8: return "invalid-utf8"
        case .duplicateID: return "duplicate-id"
        case .tooLong: return "too-long"
        case .missingField: return "missing-field"
        }
    }
}
