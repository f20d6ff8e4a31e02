import FoundationEssentials

/// The on-disk format of the book list.
///
/// Both formats are handled through the text document: a JSON file is turned into canonical
/// `id|name|author` rows when read and written back as JSON, so diff, context and queries are
/// the same for both.
public enum BookFileFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `books.txt`: one `id|name|author` row per line (see docs/FORMAT.md).
    case text
    /// `books.json`: an array of `{"id","name","author"}` objects.
    case json

    /// The spelling used in configuration and on the command line.
    public var description: String { rawValue }

    /// The text the document parses for the file content `fileBytes`.
    /// - Throws: `BookFormatError.invalidJSON` when a JSON file does not decode (it is then never
    ///   rewritten, so nothing in it is lost).
    public func canonicalText(from fileBytes: [UInt8]) throws(BookFormatError) -> [UInt8] {
        switch self {
        case .text:
            return fileBytes
        case .json:
            if fileBytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [] }
            let books: [Book]
            do {
                books = try JSONDecoder().decode([Book].self, from: Data(fileBytes))
            } catch {
                throw .invalidJSON(String(describing: error))
            }
            var out: [UInt8] = []
            out.reserveCapacity(fileBytes.count)
            for book in books {
                out.append(contentsOf: RowEscaping.row(for: book))
                out.append(0x0A)
            }
            return out
        }
    }

    /// The file content for a document's canonical text.
    public func fileBytes(for document: BookDocument) -> [UInt8] {
        fileBytes(for: document, extraMembers: { _ in [] })
    }

    /// The file content for a document's canonical text; in JSON, each book object ends with the
    /// raw members `extraMembers` gives for its id (`"key": value`, written as they are).
    public func fileBytes(for document: BookDocument, extraMembers: (String) -> [[UInt8]]) -> [UInt8] {
        switch self {
        case .text:
            return document.bytes
        case .json:
            var out: [UInt8] = [UInt8(ascii: "[")]
            var first = true
            document.forEachBook { book in
                out.append(contentsOf: first ? [0x0A, 0x20, 0x20] : [0x2C, 0x0A, 0x20, 0x20])
                first = false
                out.append(contentsOf: Array("{\"id\": ".utf8))
                JSONText.appendString(book.id, to: &out)
                out.append(contentsOf: Array(", \"name\": ".utf8))
                JSONText.appendString(book.name, to: &out)
                out.append(contentsOf: Array(", \"author\": ".utf8))
                JSONText.appendString(book.author, to: &out)
                for member in extraMembers(book.id) {
                    out.append(contentsOf: [0x2C, 0x20])
                    out.append(contentsOf: member)
                }
                out.append(UInt8(ascii: "}"))
            }
            out.append(contentsOf: first ? [UInt8(ascii: "]"), 0x0A] : [0x0A, UInt8(ascii: "]"), 0x0A])
            return out
        }
    }
}

/// Why file content could not be read as books.
public enum BookFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A JSON book file that is not an array of `{"id","name","author"}` string objects.
    case invalidJSON(String)

    public var description: String {
        switch self {
        case .invalidJSON(let detail): return "not a JSON array of {\"id\",\"name\",\"author\"} objects: \(detail)"
        }
    }
}
