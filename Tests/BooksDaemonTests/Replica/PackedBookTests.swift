import BooksCore
import Testing

@testable import BooksDaemon

/// A replica keeps each of the store's books as one byte buffer: it reads back exactly the book
/// it was made of (every byte, every field boundary), compares by bytes, and costs one
/// allocation, not a `String` per field.
@Suite struct PackedBookTests {
    static let books = [
        Book(id: "6513270e-269e-4d37-b2a7-4de452e6b438", name: "Garden", author: "Naguib Garc\u{ED}a M\u{E1}rquez"),
        Book(id: "a", name: "", author: ""),
        Book(id: "b", name: "Caf\u{E9}", author: "A"),
        Book(id: "b", name: "Cafe\u{301}", author: "A"),
        Book(id: "c", name: "pipe | and \\ back\nslash\t", author: "\u{1F4DA} emoji"),
        Book(id: "d", name: String(repeating: "x", count: 70_000), author: "long"),
    ]

    @Test func everyBookReadsBackByteForByte() {
        for book in Self.books {
            let packed = PackedBook(book)
            #expect(Optional(packed.book).isIdentical(to: book))
            #expect(packed.id.utf8.elementsEqual(book.id.utf8))
            #expect(packed.isIdentical(to: book))
            #expect(packed.byteCount == 8 + book.id.utf8.count + book.name.utf8.count + book.author.utf8.count)
        }
    }

    @Test func booksCompareByTheirBytes() {
        for (i, a) in Self.books.enumerated() {
            for (j, b) in Self.books.enumerated() {
                #expect((PackedBook(a) == PackedBook(b)) == (i == j))
                #expect(PackedBook(a).isIdentical(to: b) == (i == j))
            }
        }
        let composed = PackedBook(Self.books[2])
        #expect(!composed.isIdentical(to: Self.books[3]), "canonically equal, not the same bytes")
        #expect(Optional<PackedBook>.none.isIdentical(to: nil) && !Optional(composed).isIdentical(to: nil))
        // A field boundary moved is another book, though the bytes run on the same.
        #expect(PackedBook(Book(id: "ab", name: "c", author: "")) != PackedBook(Book(id: "a", name: "bc", author: "")))
    }

    /// A replica's book with its version is two words (a buffer and a version), not three strings.
    @Test func aReplicaBookTakesTwoWords() {
        #expect(MemoryLayout<ReplicaBook>.size <= 16)
        #expect(MemoryLayout<ReplicaEntry>.size <= 17)
        let book = ReplicaBook(book: Self.books[0], version: 7)
        var copy = book
        #expect(copy.packed.sharesStorage(with: book.packed))
        copy.book = Self.books[1]
        #expect(copy.version == 7 && Optional(copy.book).isIdentical(to: Self.books[1]))
        #expect(Optional(book.book).isIdentical(to: Self.books[0]))
    }
}
