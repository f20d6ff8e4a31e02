/// The escape rules of the `books.txt` row format.
///
/// A field may hold any Unicode text. When written, `\` becomes `\\`, `|` becomes `\|`, a line feed
/// `\n`, a carriage return `\r` and a tab `\t`. Reading reverses exactly that; an unknown escape such
/// as `\x`, or a lone `\` at the end of a field, reads as written (so hand-typed backslashes in old
/// files survive). A field without any of those characters is written byte-for-byte, so every row
/// of SwiftData's TextStore sample reads and writes unchanged.
public enum RowEscaping {
    /// True when `field` needs no escaping.
    public static func isPlain(_ field: String) -> Bool {
        for byte in field.utf8 where byte == 0x5C || byte == 0x7C || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            return false
        }
        return true
    }

    /// Appends `field`, escaped, to `output`.
    public static func appendEscaped(_ field: String, to output: inout [UInt8]) {
        if isPlain(field) {
            output.append(contentsOf: field.utf8)
            return
        }
        for byte in field.utf8 {
            switch byte {
            case 0x5C:
                output.append(0x5C)
                output.append(0x5C)
            case 0x7C:
                output.append(0x5C)
                output.append(0x7C)
            case 0x0A:
                output.append(0x5C)
                output.append(UInt8(ascii: "n"))
            case 0x0D:
                output.append(0x5C)
                output.append(UInt8(ascii: "r"))
            case 0x09:
                output.append(0x5C)
                output.append(UInt8(ascii: "t"))
            default: output.append(byte)
            }
        }
    }

    /// The escaped form of `field`.
    public static func escape(_ field: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(field, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes an escaped field from valid UTF-8 bytes.
    public static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b == 0x5C, i + 1 < n, let unescaped = unescaped(bytes[i + 1]) {
                out.append(unescaped)
                i += 2
                continue
            }
            out.append(b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte the escape `\` + `next` stands for (`\\`, `\|`, `\n`, `\r`, `\t`); nil for any
    /// other `next` (the backslash is then kept as written).
    @inline(__always) static func unescaped(_ next: UInt8) -> UInt8? {
        switch next {
        case 0x5C: 0x5C
        case 0x7C: 0x7C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// The row `id|name|author` for `book`, escaped, without a line end.
    public static func row(for book: Book) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(book.id.utf8.count + book.name.utf8.count + book.author.utf8.count + 2)
        appendEscaped(book.id, to: &out)
        out.append(0x7C)
        appendEscaped(book.name, to: &out)
        out.append(0x7C)
        appendEscaped(book.author, to: &out)
        return out
    }
}
