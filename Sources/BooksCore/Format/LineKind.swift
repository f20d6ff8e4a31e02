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

/// Where one line sits in the file's bytes and what it is, packed in 16 bytes (a million-row
/// file costs 16 MB of line records beside its bytes).
///
/// `start` is the offset of the line's first byte (files are limited to 4 GiB); `length` excludes
/// the line end (and a `\r` before `\n`); `separator1`/`separator2` are offsets of the field
/// separators relative to `start` (for `newBook` only `separator1` is used; `separator2` < 16 MiB,
/// which the line-length limit guarantees for every row with separators).
struct LineRecord: Sendable, Hashable {
    private var startOffset: UInt32
    var length: UInt32
    var separator1: UInt32
    /// Bits 0–23: separator2; 24–27: kind; 28: escaped; 29: hasCR; 30: hasNewline.
    private var bits: UInt32

    static let maximumSeparatorOffset = (1 << 24) - 1

    init(
        start: Int, length: UInt32, separator1: UInt32, separator2: UInt32, kind: LineKind,
        escaped: Bool, hasCR: Bool, hasNewline: Bool
    ) {
        startOffset = UInt32(truncatingIfNeeded: start)
        self.length = length
        self.separator1 = separator1
        bits = 0
        self.separator2 = separator2
        self.kind = kind
        self.escaped = escaped
        self.hasCR = hasCR
        self.hasNewline = hasNewline
    }

    var start: Int {
        @inline(__always) get { Int(startOffset) }
        @inline(__always) set { startOffset = UInt32(truncatingIfNeeded: newValue) }
    }

    var separator2: UInt32 {
        @inline(__always) get { bits & 0x00FF_FFFF }
        @inline(__always) set { bits = (bits & 0xFF00_0000) | (newValue & 0x00FF_FFFF) }
    }

    var kind: LineKind {
        @inline(__always) get { LineKind(rawValue: UInt8((bits >> 24) & 0xF))! }
        @inline(__always) set { bits = (bits & ~(0xF << 24)) | (UInt32(newValue.rawValue) << 24) }
    }

    var escaped: Bool {
        @inline(__always) get { bits & (1 << 28) != 0 }
        @inline(__always) set { bits = newValue ? bits | (1 << 28) : bits & ~(1 << 28) }
    }

    var hasCR: Bool {
        @inline(__always) get { bits & (1 << 29) != 0 }
        @inline(__always) set { bits = newValue ? bits | (1 << 29) : bits & ~(1 << 29) }
    }

    var hasNewline: Bool {
        @inline(__always) get { bits & (1 << 30) != 0 }
        @inline(__always) set { bits = newValue ? bits | (1 << 30) : bits & ~(1 << 30) }
    }
}
