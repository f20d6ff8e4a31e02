import BooksCore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksStore

@Suite struct TextBookStoreTests {
    @Test func saveKeepsCommentsBadLinesAndPermissions() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["# my list", "1|Dune|Herbert", "broken line", "", "2|Emma|Austen"]))
        chmod(dir.file("books.txt"), 0o640)
        let store = TextBookStore(path: dir.file("books.txt"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let document = BookDocument(parsing: canonical)
        let result = try store.save(
            SaveRequest(
                inserted: [.init(temporaryID: "t1", name: "Ulysses", author: "Joyce")],
                updated: [Book(id: "2", name: "Emma", author: "J. Austen")],
                deleted: ["1"]),
            onto: document, expected: identity)
        let newID = try #require(result.remapped.first { $0.temporaryID == "t1" }?.permanentID)
        #expect(
            dir.read("books.txt")
                == lines(["# my list", "broken line", "", "2|Emma|J. Austen", "\(newID)|Ulysses|Joyce"]))
        #expect(result.content(basedOn: document.bytes) == dir.read("books.txt"))
        var s = stat()
        stat(dir.file("books.txt"), &s)
        #expect(s.st_mode & 0o777 == 0o640)
        #expect(dir.names() == ["books.txt"], "no temporary file is left behind")
    }

    @Test func handTypedRowsGetPermanentIDsInPlace() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["1|Dune|Herbert", "Emma|Jane Austen", "# end"]))
        let store = TextBookStore(path: dir.file("books.txt"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let result = try store.save(SaveRequest(), onto: BookDocument(parsing: canonical), expected: identity)
        #expect(result.remapped.count == 1)
        #expect(result.remapped[0].temporaryID == "line:2")
        let id = result.remapped[0].permanentID
        #expect(dir.read("books.txt") == lines(["1|Dune|Herbert", "\(id)|Emma|Jane Austen", "# end"]))
    }

    @Test func aFileChangedSinceItWasReadIsNotOverwritten() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        let store = TextBookStore(path: dir.file("books.txt"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        try dir.write("books.txt", lines(["1|Dune|Herbert", "2|Hand|Edit"]))  // a hand edit meanwhile
        #expect(throws: BookFileError.changedDuringWrite(path: dir.file("books.txt"))) {
            try store.save(SaveRequest(deleted: ["1"]), onto: BookDocument(parsing: canonical), expected: identity)
        }
        #expect(dir.read("books.txt") == lines(["1|Dune|Herbert", "2|Hand|Edit"]))
        #expect(dir.names() == ["books.txt"])
    }

    @Test func randomBooksRoundTripThroughTheFile() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let store = TextBookStore(path: dir.file("books.txt"))
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "|", "\\", "\n", "\t", "\r", "🦄", "e\u{301}", "שלום", "#", " ", "a",
            String(repeating: "long", count: 500),
        ]
        var insertions: [SaveRequest.Insertion] = []
        for k in 0..<200 {
            let name = (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement()! }.joined()
            let author = (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement()! }.joined()
            insertions.append(.init(temporaryID: "t\(k)", id: "id-\(k)", name: name, author: author))
        }
        _ = try store.save(SaveRequest(inserted: insertions), onto: BookDocument(), expected: nil)
        guard case .present(let canonical, _) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let books = BookDocument(parsing: canonical).books
        #expect(books.count == insertions.count)
        for (book, insertion) in zip(books, insertions) {
            #expect(book.id == insertion.id)
            #expect(book.name.utf8.elementsEqual(insertion.name.utf8))
            #expect(book.author.utf8.elementsEqual(insertion.author.utf8))
        }
    }

    @Test func readerRefusesDirectoriesAndFIFOsWithoutBlocking() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        mkdir(dir.file("adir"), 0o755)
        mkfifo(dir.file("fifo"), 0o644)
        defer { rmdir(dir.file("adir")) }
        guard case .unavailable(let error) = FileReader.read(dir.file("adir")) else {
            Issue.record("dir")
            return
        }
        #expect(error == .notARegularFile(path: dir.file("adir"), kind: "directory"))
        guard case .unavailable = FileReader.read(dir.file("fifo")) else {
            Issue.record("fifo")
            return
        }
        guard case .missing = FileReader.read(dir.file("nothing")) else {
            Issue.record("missing")
            return
        }
    }

    @Test func staleTemporariesAreRemoved() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["1|A|B"]))
        // Identical to the book file, so it is removed (one that differs is kept: StaleTemporaryTests).
        try dir.write(".books.txt.booksd-Ab12Cd", lines(["1|A|B"]))
        try dir.write(".books.txt.swp", lines(["vim"]))
        #expect(AtomicFileWriter.removeStaleTemporaries(beside: dir.file("books.txt")) == [".books.txt.booksd-Ab12Cd"])
        #expect(dir.names() == [".books.txt.swp", "books.txt"])
    }

    @Test func symlinkTargetIsReplacedAndTheLinkKept() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("real.txt", lines(["1|A|B"]))
        symlink(dir.file("real.txt"), dir.file("books.txt"))
        // Only with allowSymlink (a link is refused by default: SymlinkPolicyTests).
        let store = TextBookStore(
            configuration: BookStoreConfiguration(path: dir.file("books.txt"), allowSymlink: true))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        _ = try store.save(SaveRequest(deleted: ["1"]), onto: BookDocument(parsing: canonical), expected: identity)
        var s = stat()
        lstat(dir.file("books.txt"), &s)
        #expect(s.st_mode & S_IFMT == S_IFLNK)
        #expect(dir.read("real.txt") == [])
    }
}

@Suite struct JSONBookStoreTests {
    @Test func savesAndFetchesJSON() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.json", Array(#"[{"id":"1","name":"Dune","author":"Herbert"}]"#.utf8))
        let store = JSONBookStore(path: dir.file("books.json"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        _ = try store.save(
            SaveRequest(inserted: [.init(temporaryID: "t", id: "2", name: "A \"quoted\" | name", author: "x\ny")]),
            onto: BookDocument(parsing: canonical), expected: identity)
        guard case .present(let again, _) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        #expect(
            BookDocument(parsing: again).books == [
                Book(id: "1", name: "Dune", author: "Herbert"),
                Book(id: "2", name: "A \"quoted\" | name", author: "x\ny"),
            ])
    }

    @Test func invalidJSONIsUnavailableAndDuplicateIDsAreRefused() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("a.json", Array("[{\"id\": 1}".utf8))
        guard case .unavailable = JSONBookStore(path: dir.file("a.json")).fetch() else {
            Issue.record("invalid")
            return
        }
        try dir.write("b.json", Array(#"[{"id":"1","name":"a","author":"b"},{"id":"1","name":"c","author":"d"}]"#.utf8))
        guard case .unavailable(let error) = JSONBookStore(path: dir.file("b.json")).fetch() else {
            Issue.record("dup")
            return
        }
        #expect(error.description.contains("duplicate id 1"))
    }
}

@Suite struct AppendWriterTests {
    @Test func insertsAreAppendedInPlaceAndReadBack() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["# list", "1|Dune|Herbert"]))
        let store = TextBookStore(path: dir.file("books.txt"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let before = FileIdentity.of(path: dir.file("books.txt"))
        let result = try #require(
            try store.appendIfPossible(
                SaveRequest(inserted: [.init(temporaryID: "t", id: "2", name: "Emma", author: "Austen")]),
                onto: BookDocument(parsing: canonical), expected: identity))
        #expect(dir.read("books.txt") == lines(["# list", "1|Dune|Herbert", "2|Emma|Austen"]))
        #expect(result.content(basedOn: canonical) == dir.read("books.txt"))
        #expect(FileIdentity.of(path: dir.file("books.txt"))?.inode == before?.inode, "appended in place, not replaced")
        #expect(dir.names() == ["books.txt"], "the intent record is removed")
    }

    @Test func updatesDeletesAndChangedFilesDoNotTakeTheAppendPath() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        try dir.write("books.txt", lines(["1|Dune|Herbert"]))
        let store = TextBookStore(path: dir.file("books.txt"))
        guard case .present(let canonical, let identity) = store.fetch() else {
            Issue.record("fetch")
            return
        }
        let document = BookDocument(parsing: canonical)
        #expect(try store.appendIfPossible(SaveRequest(deleted: ["1"]), onto: document, expected: identity) == nil)
        try dir.write("books.txt", lines(["1|Dune|Herbert", "3|Hand|Edit"]))
        #expect(throws: BookFileError.changedDuringWrite(path: dir.file("books.txt"))) {
            try store.appendIfPossible(
                SaveRequest(inserted: [.init(temporaryID: "t", name: "A", author: "B")]),
                onto: document, expected: identity)
        }
        #expect(dir.read("books.txt") == lines(["1|Dune|Herbert", "3|Hand|Edit"]))
    }

    @Test func aTornAppendIsCutOffAfterACrash() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let original = lines(["1|Dune|Herbert"])
        let payload = lines(["2|Emma|Austen", "3|Ulysses|Joyce"])
        try dir.write("books.txt", original + payload.prefix(20))  // the crash hit mid-append
        writeIntent(original: original.count, payload: payload, in: dir)
        #expect(AppendWriter.recover(path: dir.file("books.txt")) != nil)
        #expect(dir.read("books.txt") == original)
        #expect(dir.names() == ["books.txt"])
    }

    @Test func aCompleteAppendIsKept() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let original = lines(["1|Dune|Herbert"])
        let payload = lines(["2|Emma|Austen"])
        try dir.write("books.txt", original + payload)
        writeIntent(original: original.count, payload: payload, in: dir)
        #expect(AppendWriter.recover(path: dir.file("books.txt")) == nil)
        #expect(dir.read("books.txt") == original + payload)
    }

    /// The intent record the writer makes before appending `payload` to a file of `original` bytes.
    func writeIntent(original: Int, payload: [UInt8], in dir: TemporaryDirectory) {
        guard let identity = FileIdentity.of(path: dir.file("books.txt")) else {
            Issue.record("stat")
            return
        }
        let record = AppendIntentRecord(
            device: identity.device, inode: identity.inode, originalSize: original,
            payload: payload)
        #expect(throws: Never.self) {
            try AppendIntentRecord.write(record, at: dir.file(".books.txt.booksd-append-intent"))
        }
    }
}
