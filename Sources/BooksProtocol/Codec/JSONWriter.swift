import BooksCore

/// Appends compact JSON to a byte buffer. Strings are escaped per RFC 8259: `"` and `\` are
/// backslash-escaped, control characters become `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`, and
/// everything else (all non-ASCII) is copied as raw UTF-8.
struct JSONWriter {
    var bytes: [UInt8]

    init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) mutating func raw(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always) mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `"key":`, with a leading comma unless `first`.
    @inline(__always) mutating func key(_ name: StaticString, first: inout Bool) {
        if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ value: String) {
        JSONText.appendString(value, to: &bytes)
    }

    mutating func unsigned(_ value: UInt64) {
        var width = 1
        var t = value
        while t >= 10 {
            width += 1
            t /= 10
        }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width))
        var v = value
        var i = start + width - 1
        while v > 0 {
            bytes[i] = UInt8(ascii: "0") &+ UInt8(v % 10)
            v /= 10
            i -= 1
        }
    }

    mutating func signed(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        unsigned(UInt64(value.magnitude))
    }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func book(_ book: Book) {
        object { w, first in
            w.member("id", book.id, first: &first)
            w.member("name", book.name, first: &first)
            w.member("author", book.author, first: &first)
        }
    }

    mutating func books(_ books: [Book]) { array(books) { $0.book($1) } }

    mutating func updates(_ updates: [BookUpdate]) {
        array(updates) { w, update in
            w.object { w, first in
                w.key("old", first: &first)
                w.book(update.old)
                w.key("new", first: &first)
                w.book(update.new)
            }
        }
    }

    mutating func unsignedArray(_ values: [UInt64]) { array(values) { $0.unsigned($1) } }

    mutating func stringArray(_ values: [String]) { array(values) { $0.string($1) } }
}
