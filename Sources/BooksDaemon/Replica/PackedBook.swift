import BooksCore

/// One book's three fields as one byte buffer: what a replica keeps of each of the store's books
/// (like `BookDocument`, bytes, not a `String` per field).
///
/// A value. Holds the fields' UTF-8 bytes exactly (no normalization: two books are the same here
/// only when byte for byte the same, as their rows in the file are) in one allocation, after two
/// lengths: at a million books, one buffer per book instead of up to three strings. `book` makes
/// the strings when asked for; comparisons (`isIdentical`, `==`) look at the bytes only.
public struct PackedBook: Sendable, Hashable {
    /// `idLength` and `nameLength` (4 bytes each, little-endian), then the id, name and author.
    private let bytes: [UInt8]

    /// The bytes of `book`.
    public init(_ book: Book) {
        let id = book.id.utf8
        let name = book.name.utf8
        let author = book.author.utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + id.count + name.count + author.count)
        Self.appendLength(id.count, to: &bytes)
        Self.appendLength(name.count, to: &bytes)
        bytes.append(contentsOf: id)
        bytes.append(contentsOf: name)
        bytes.append(contentsOf: author)
        self.bytes = bytes
    }

    /// The book (new strings of its bytes).
    public var book: Book {
        let (name, author) = fields
        return Book(
            id: String(decoding: bytes[idRange], as: UTF8.self), name: String(decoding: bytes[name], as: UTF8.self),
            author: String(decoding: bytes[author], as: UTF8.self))
    }

    /// The book's id.
    public var id: String { String(decoding: bytes[idRange], as: UTF8.self) }

    /// Whether `book` has exactly these bytes (without making its strings).
    public func isIdentical(to book: Book) -> Bool {
        let (name, author) = fields
        return bytes[idRange].elementsEqual(book.id.utf8) && bytes[name].elementsEqual(book.name.utf8)
            && bytes[author].elementsEqual(book.author.utf8)
    }

    /// Whether both hold the same buffer (not only the same bytes): for tests of sharing.
    func sharesStorage(with other: PackedBook) -> Bool {
        let mine = bytes.withUnsafeBufferPointer { $0.baseAddress }
        let theirs = other.bytes.withUnsafeBufferPointer { $0.baseAddress }
        return mine == theirs
    }

    /// The room its bytes take (without the allocation's own header).
    var byteCount: Int { bytes.count }

    private var idRange: Range<Int> { 8..<(8 + Self.length(bytes, at: 0)) }

    private var fields: (name: Range<Int>, author: Range<Int>) {
        let nameStart = idRange.upperBound
        let nameEnd = nameStart + Self.length(bytes, at: 4)
        return (nameStart..<nameEnd, nameEnd..<bytes.count)
    }

    private static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        let value = UInt32(truncatingIfNeeded: length)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func length(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }
}

extension Optional where Wrapped == PackedBook {
    /// Byte-for-byte equality with `book` (both absent counts as equal), without making strings.
    func isIdentical(to book: Book?) -> Bool {
        switch (self, book) {
        case (nil, nil): true
        case (.some(let packed), .some(let book)): packed.isIdentical(to: book)
        default: false
        }
    }
}
