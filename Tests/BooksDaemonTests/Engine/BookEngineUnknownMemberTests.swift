import BooksCore
import BooksProtocol
import BooksStore
import BooksTestSupport
import Testing

@testable import BooksDaemon

/// A hand edit of a JSON book's member other than id, name and author (`isbn`) was
/// invisible: the canonical text did not change, so no update was reported.
@Suite(.serialized) struct BookEngineUnknownMemberTests {
    func start(_ json: String) throws -> (TemporaryDirectory, BookEngine, RecordingChannel) {
        let directory = try TemporaryDirectory(prefix: "booksync-engine-json")
        let path = directory.file("books.json")
        try TestFiles.write(json, to: path)
        var configuration = DaemonConfiguration()
        configuration.filePath = path
        configuration.format = .json
        let channel = RecordingChannel()
        let engine = BookEngine(
            configuration: configuration, store: JSONBookStore(path: path), logger: Logger(backend: SilentLog()),
            channel: channel)
        engine.load()
        return (directory, engine, channel)
    }

    func edit(_ directory: TemporaryDirectory, _ json: String, _ engine: BookEngine) throws {
        try TestFiles.write(json, to: directory.file("books.json"))
        engine.fileEvent(.contentMayHaveChanged)
        engine.drain()
    }

    @Test func anEditOfAnUnknownMemberIsAnUpdateOfItsBook() throws {
        let (directory, engine, channel) = try start(
            #"[{"id": "1", "name": "Dune", "author": "H", "isbn": "a"}, {"id": "2", "name": "E", "author": "A"}]"#)
        defer { directory.remove() }
        try edit(
            directory,
            #"[{"id": "1", "name": "Dune", "author": "H", "isbn": "b"}, {"id": "2", "name": "E", "author": "A"}]"#,
            engine)
        let changes = channel.changes.withLock { $0 }
        #expect(changes.count == 1)
        #expect(changes.first?.changes.updated.map(\.new) == [Book(id: "1", name: "Dune", author: "H")])
        #expect(changes.first?.changes.inserted.isEmpty == true && changes.first?.changes.deleted.isEmpty == true)
        #expect(changes.first?.source == .file)
        #expect(engine.position.seq == 1, "the book's version moved on with the edit")
    }

    @Test func aRowEditWithAMemberEditIsReportedOnceAndNewOrGoneBooksAreNotUpdates() throws {
        let (directory, engine, channel) = try start(
            #"[{"id": "1", "name": "Dune", "author": "H", "isbn": "a"}, {"id": "2", "name": "E", "author": "A", "n": 1}]"#
        )
        defer { directory.remove() }
        // 1: author and isbn edited; 2: deleted with its member; 3: new with a member.
        try edit(
            directory,
            #"[{"id": "1", "name": "Dune", "author": "F. H", "isbn": "b"}, {"id": "3", "name": "N", "author": "B", "n": 2}]"#,
            engine)
        let changes = channel.changes.withLock { $0 }
        #expect(changes.count == 1, "\(changes.map(\.changes))")
        #expect(changes.first?.changes.updated.map(\.new.author) == ["F. H"])
        #expect(changes.first?.changes.deleted.map(\.id) == ["2"])
        #expect(changes.first?.changes.inserted.map(\.id) == ["3"])
    }

    @Test func aClientWriteOnAnUnseenMemberEditReportsTheBookOnceAndKeepsTheEdit() throws {
        let (directory, engine, channel) = try start(
            #"[{"id": "1", "name": "Dune", "author": "H", "isbn": "a"}, {"id": "2", "name": "E", "author": "A", "n": 1}]"#
        )
        defer { directory.remove() }
        // Hand edits the watcher has not reported yet: both books' members.
        try TestFiles.write(
            #"[{"id": "1", "name": "Dune", "author": "H", "isbn": "b"}, {"id": "2", "name": "E", "author": "A", "n": 2}]"#,
            to: directory.file("books.json"))
        engine.handle(
            Request(id: "w", op: .update, patches: [BookPatch(id: "1", author: "Frank Herbert")]),
            from: ReplyTarget(.socket, 1), peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
        engine.drain()
        engine.fileEvent(.contentMayHaveChanged)  // the daemon's own write, seen late
        engine.drain()
        let changes = channel.changes.withLock { $0 }
        #expect(
            changes.map(\.source) == [.client, .file],
            "\(changes.map(\.changes)) \(channel.replies.withLock { $0.map { String(describing: $0.1) } })")
        #expect(changes.first?.changes.updated.map(\.new.author) == ["Frank Herbert"])
        #expect(changes.last?.changes.updated.map(\.new.id) == ["2"], "book 1 was reported by the client write")
        let file = String(decoding: directory.read("books.json") ?? [], as: UTF8.self)
        #expect(file.contains(#""author": "Frank Herbert", "isbn": "b"}"#) && file.contains(#""n": 2"#), "\(file)")
    }
}
