/// What one line of the book file is.
public enum LineKind: UInt8, Sendable, Hashable {
    /// Empty, or only spaces and tabs.
    case blank
    /// Starts with `#` (after optional spaces).
    case comment
    /// A book row `id|name|author`.
    case book
    /// A new book typed by hand as `name|author`, waiting for a permanent id.
    case newBook
    /// Bad lines, by reason.
    case badFieldCount, badEmptyID, badUTF8, badDuplicateID, badTooLong, badMissingField

    /// True for every bad-line kind.
    public var isBad: Bool { rawValue >= LineKind.badFieldCount.rawValue }
}

/// Where one line sits in the file's bytes and what it is.
///
/// `start` is the offset of the line's first byte; `length` excludes the line end (and a `\r`
/// before `\n`); `separator1`/`separator2` are offsets of the field separators relative to `start`
/// (for `newBook` only `separator1` is used).
struct LineRecord: Sendable, Hashable {
    var start: Int
    var length: UInt32
    var separator1: UInt32
    var separator2: UInt32
    var kind: LineKind
    /// True when a field contains `\` and must be unescaped when decoded.
    var escaped: Bool
    /// True when the line ends with `\r\n` (false for `\n` or no line end at end of file).
    var hasCR: Bool
    /// True when the line has a line end at all.
    var hasNewline: Bool
}
