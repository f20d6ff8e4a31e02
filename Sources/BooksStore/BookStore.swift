import BooksCore
import FoundationEssentials

/// A place that keeps the book list (SwiftData's `DataStore` idea): fetch everything, save
/// inserted/updated/deleted books and get the remapped identifiers back.
public protocol BookStore: Sendable {
    /// Where and how the books are kept.
    var configuration: BookStoreConfiguration { get }
    /// Reads the whole file.
    func fetch() -> BookStoreSnapshot
    /// Compares the file with `document` (the content fetched or saved last): the change as the
    /// smallest splice of its canonical text, or `.unchanged`.
    func compare(with document: BookDocument) -> FileComparison
    /// Applies `request` to `document` (the current content) and replaces the file atomically and
    /// durably. With `expected`, refuses with `.changedDuringWrite` when the file is no longer that
    /// version (nil `expected` = the file must still be missing).
    func save(
        _ request: SaveRequest, onto document: BookDocument, expected: FileIdentity?
    ) throws(BookFileError) -> SaveResult
    /// The ids of books whose members outside `id|name|author` (a JSON file's `isbn`) were edited
    /// between the last two reads of the file, each handed out once; always empty for a format
    /// without such members.
    func takeUnknownMemberEdits() -> [String]
}

extension BookStore {
    /// No members outside `id|name|author`: nothing to report.
    public func takeUnknownMemberEdits() -> [String] { [] }
}

extension BookStore {
    /// The shared save: line edits on the document, rendering, format conversion, atomic write.
    func saveUsingFormat(
        _ request: SaveRequest, onto document: BookDocument,
        expected: FileIdentity?
    ) throws(BookFileError) -> SaveResult {
        var edits: [DocumentEdit] = []
        var remapped: [IdentifierRemap] = []
        var inserted: [Book] = []
        for book in request.updated {
            guard let line = document.lineIndex(ofBook: book.id) else { throw .unknownBook(book.id) }
            edits.append(.replace(line: line, with: book))
        }
        for id in request.deleted {
            guard let line = document.lineIndex(ofBook: id) else { throw .unknownBook(id) }
            edits.append(.delete(line: line))
        }
        if request.assignIDsToNewRows {
            for row in document.newBookRows {
                let id = UUID().uuidString
                edits.append(.replace(line: row.lineIndex, with: Book(id: id, name: row.name, author: row.author)))
                remapped.append(IdentifierRemap(temporaryID: "line:\(row.lineIndex + 1)", permanentID: id))
            }
        }
        for insertion in request.inserted {
            let book = Book(id: insertion.id ?? UUID().uuidString, name: insertion.name, author: insertion.author)
            if insertion.id == nil {
                remapped.append(IdentifierRemap(temporaryID: insertion.temporaryID, permanentID: book.id))
            }
            edits.append(.append(book))
            inserted.append(book)
        }
        if configuration.format == .text, let expected, let splice = document.splice(replacingLines: edits) {
            // Rows changed in place (no append): written from the old bytes around the change,
            // with no rendered copy of the file and no file-sized comparison to find the change.
            let written = try writeCanonical(splice, onto: document.bytes, expected: expected)
            return SaveResult(
                splice: splice, identity: written.identity, remapped: remapped, inserted: inserted,
                lateEdit: written.lateEdit, directorySynced: written.directorySynced)
        }
        let canonical = document.rendering(edits)
        let written = try writeCanonical(canonical, replacing: document.bytes, expected: expected)
        return SaveResult(
            splice: ByteSplice(from: document.bytes, to: canonical), identity: written.identity,
            remapped: remapped, inserted: inserted, lateEdit: written.lateEdit,
            directorySynced: written.directorySynced)
    }

    /// Writes `canonical` (in the store's format) over the version of the file whose canonical
    /// text is `replaced` and whose identity is `expected` (nil: there must be no file), atomically
    /// and durably; `.changedDuringWrite` when the file is not that version. The result's
    /// `lateEdit` is canonical text too (a late write that is not valid in the format is kept in
    /// a recovery file beside the book file instead, see `RecoveryFile`).
    public func writeCanonical(
        _ canonical: [UInt8], replacing replaced: [UInt8],
        expected: FileIdentity?
    ) throws(BookFileError) -> AtomicWriteResult {
        let fileBytes: [UInt8]
        // JSON: the exact file replaced, whose unknown members are carried through.
        var replacedFile: [UInt8]?
        switch configuration.format {
        case .text: fileBytes = canonical
        case .json:
            let extras: JSONExtraMembers
            (replacedFile, extras) = try jsonFileToReplace(expected: expected)
            fileBytes = extras.fileBytes(for: BookDocument(parsing: canonical, lineLimit: .max))
        }
        let format = configuration.format
        // The version replaced must be the one planned on, byte for byte (for JSON the file
        // read: an edit of an unknown member alone must not be overwritten either).
        let exact = format == .text ? replaced : replacedFile
        var written = try AtomicFileWriter.write(
            fileBytes, to: configuration.path, expected: expected,
            expectMissing: expected == nil,
            allowSymlink: configuration.allowSymlink,
            expectedContent: exact,
            isExpectedContent: exact != nil
                ? nil
                : { version in
                    (try? format.canonicalText(from: version)).map { ByteComparison.equal($0, replaced) } ?? false
                })
        if let late = written.lateEdit, format == .json {
            if let text = try? format.canonicalText(from: late) {
                written.lateEdit = text
            } else {
                written.lateEdit = nil
                RecoveryFile.keep(late, beside: configuration.path)
            }
        }
        return written
    }

    /// For a JSON rewrite: reads the file being replaced (it must be `expected`, else
    /// `.changedDuringWrite`) and scans it for members other than id, name and author, so that
    /// the rewrite keeps them (`JSONExtraMembers`). A file that cannot be scanned is not rewritten.
    func jsonFileToReplace(expected: FileIdentity?) throws(BookFileError) -> ([UInt8]?, JSONExtraMembers) {
        guard let expected else { return (nil, JSONExtraMembers()) }
        switch FileReader.read(
            configuration.path, sizeLimit: configuration.sizeLimit,
            allowSymlink: configuration.allowSymlink)
        {
        case .present(let bytes, let identity):
            guard identity == expected else { throw .changedDuringWrite(path: configuration.path) }
            do {
                return (bytes, try JSONExtraMembers.scan(bytes))
            } catch {
                throw .invalidContent(
                    path: configuration.path,
                    detail: "its members other than id, name and author "
                        + "could not be read to keep them (\(error)); not rewritten")
            }
        case .missing: throw .changedDuringWrite(path: configuration.path)
        case .unavailable(let error): throw error
        }
    }

    /// The fast path for a save that only inserts into a text file: the new rows are appended in
    /// place (`AppendWriter`) instead of rewriting the whole file, then the file is read back.
    /// Returns nil when the request does not qualify (the caller then uses `save`).
    public func appendIfPossible(
        _ request: SaveRequest, onto document: BookDocument,
        expected: FileIdentity?
    ) throws(BookFileError) -> SaveResult? {
        guard configuration.format == .text, let expected, !request.inserted.isEmpty,
            request.updated.isEmpty, request.deleted.isEmpty,
            !request.assignIDsToNewRows || document.newBookCount == 0,
            document.bytes.isEmpty || document.bytes.last == 0x0A
        else { return nil }
        var payload: [UInt8] = []
        var remapped: [IdentifierRemap] = []
        var inserted: [Book] = []
        for insertion in request.inserted {
            let book = Book(id: insertion.id ?? UUID().uuidString, name: insertion.name, author: insertion.author)
            if insertion.id == nil {
                remapped.append(IdentifierRemap(temporaryID: insertion.temporaryID, permanentID: book.id))
            }
            payload.append(contentsOf: RowEscaping.row(for: book))
            payload.append(contentsOf: document.lineEnding.bytes)
            inserted.append(book)
        }
        guard payload.count <= 1 << 20 else { return nil }
        if let identity = try AppendWriter.append(
            payload, to: configuration.path, expected: expected,
            allowSymlink: configuration.allowSymlink)
        {
            // The file is the content we had plus our rows: no need to read it back.
            return SaveResult(
                splice: .append(payload, to: document.bytes.count), identity: identity, remapped: remapped,
                inserted: inserted, appended: payload)
        }
        switch FileReader.compare(
            configuration.path, with: document.bytes, sizeLimit: configuration.sizeLimit,
            allowSymlink: configuration.allowSymlink)
        {
        case .unchanged(let identity):
            return SaveResult(
                splice: ByteSplice(range: 0..<0, replacement: []), identity: identity, remapped: remapped,
                inserted: inserted, appended: payload)
        case .changed(let splice, let identity):
            return SaveResult(
                splice: splice, identity: identity, remapped: remapped, inserted: inserted, appended: payload)
        case .missing:
            throw .changedDuringWrite(path: configuration.path)
        case .unavailable(let error):
            throw error
        }
    }

    /// The shared comparison: fetch, then the smallest splice from the document's bytes.
    func compareUsingFormat(
        with document: BookDocument, recordingMembersIn memory: UnknownMemberMemory? = nil
    ) -> FileComparison {
        switch fetchUsingFormat(recordingMembersIn: memory) {
        case .missing: return .missing
        case .unavailable(let error): return .unavailable(error)
        case .present(let canonical, let identity):
            let splice = ByteSplice(from: document.bytes, to: canonical)
            return splice.isEmpty ? .unchanged(identity: identity) : .changed(splice, identity: identity)
        }
    }

    /// The shared fetch: read, then convert to canonical text; with `memory`, the unknown members
    /// of a JSON file are recorded in it (a file whose members cannot be scanned records none).
    func fetchUsingFormat(recordingMembersIn memory: UnknownMemberMemory? = nil) -> BookStoreSnapshot {
        switch FileReader.read(
            configuration.path, sizeLimit: configuration.sizeLimit,
            allowSymlink: configuration.allowSymlink)
        {
        case .missing: return .missing
        case .unavailable(let error): return .unavailable(error)
        case .present(let bytes, let identity):
            do {
                let canonical = try configuration.format.canonicalText(from: bytes)
                if let memory, let members = try? JSONExtraMembers.scan(bytes) { memory.record(members.byID) }
                return .present(canonical: canonical, identity: identity)
            } catch {
                return .unavailable(.invalidContent(path: configuration.path, detail: error.description))
            }
        }
    }
}

/// The `books.txt` store: one `id|name|author` row per line (docs/FORMAT.md).
public struct TextBookStore: BookStore {
    public let configuration: BookStoreConfiguration
    /// The chunk buffer of `compare`, kept between calls.
    let readBuffer = ReadBuffer()

    /// Creates a text store for `path`.
    public init(path: String, lineLimit: Int = BookDocument.defaultLineLimit) {
        configuration = BookStoreConfiguration(path: path, format: .text, lineLimit: lineLimit)
    }

    /// Creates a text store for `configuration` (its format is taken as `.text`).
    public init(configuration: BookStoreConfiguration) {
        var configuration = configuration
        configuration.format = .text
        self.configuration = configuration
    }

    public func fetch() -> BookStoreSnapshot { fetchUsingFormat() }

    /// Reads the file in cache-sized chunks and compares as it goes (`FileReader.compare`): no
    /// second file-sized buffer.
    public func compare(with document: BookDocument) -> FileComparison {
        readBuffer.withBuffer { buffer in
            FileReader.compare(
                configuration.path, with: document.bytes, sizeLimit: configuration.sizeLimit, buffer: buffer,
                allowSymlink: configuration.allowSymlink)
        }
    }

    public func save(
        _ request: SaveRequest, onto document: BookDocument,
        expected: FileIdentity?
    ) throws(BookFileError) -> SaveResult {
        try saveUsingFormat(request, onto: document, expected: expected)
    }
}

/// The `books.json` store: an array of `{"id","name","author"}` objects. A file that does not
/// decode, or holds a duplicate or empty id, is reported and never rewritten.
public struct JSONBookStore: BookStore {
    public let configuration: BookStoreConfiguration
    /// The unknown members as last read: an edit of one alone is reported as an update.
    let unknownMembers = UnknownMemberMemory()

    /// Creates a JSON store for `path`.
    public init(path: String) {
        configuration = BookStoreConfiguration(path: path, format: .json, lineLimit: .max)
    }

    /// Creates a JSON store for `configuration` (its format is taken as `.json`, no line limit).
    public init(configuration: BookStoreConfiguration) {
        var configuration = configuration
        configuration.format = .json
        configuration.lineLimit = .max
        self.configuration = configuration
    }

    public func fetch() -> BookStoreSnapshot {
        let snapshot = fetchUsingFormat(recordingMembersIn: unknownMembers)
        if case .present(let canonical, _) = snapshot {
            let document = BookDocument(parsing: canonical, lineLimit: .max)
            if let bad = document.badLines.first {
                return .unavailable(
                    .invalidContent(
                        path: configuration.path,
                        detail: "book \(bad.lineNumber) of the array: \(bad.reason)"))
            }
        }
        return snapshot
    }

    public func compare(with document: BookDocument) -> FileComparison {
        compareUsingFormat(with: document, recordingMembersIn: unknownMembers)
    }

    public func takeUnknownMemberEdits() -> [String] { unknownMembers.take() }

    public func save(
        _ request: SaveRequest, onto document: BookDocument,
        expected: FileIdentity?
    ) throws(BookFileError) -> SaveResult {
        try saveUsingFormat(request, onto: document, expected: expected)
    }
}

/// Makes the store for a configuration (symbolic links at `path` refused: see the other overload).
public func makeBookStore(path: String, format: BookFileFormat, lineLimit: Int) -> any BookStore {
    makeBookStore(configuration: BookStoreConfiguration(path: path, format: format, lineLimit: lineLimit))
}

/// Makes the store for `configuration`, e.g. with `allowSymlink` from the daemon's configuration.
public func makeBookStore(configuration: BookStoreConfiguration) -> any BookStore {
    switch configuration.format {
    case .text: return TextBookStore(configuration: configuration)
    case .json: return JSONBookStore(configuration: configuration)
    }
}
