import BooksCore
import BooksPlatform
import BooksProtocol
import BooksStore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// Records what the reconciler sends, instead of a socket server.
final class RecordingChannel: ClientChannel {
    let replies = Locked<[(ReplyTarget, Reply)]>([])
    let changes = Locked<[SequencedChangeSet]>([])
    let subscriptions = Locked<[(ReplyTarget, [Event], UInt64)]>([])

    func send(_ reply: Reply, to connection: ReplyTarget) { replies.withLock { $0.append((connection, reply)) } }
    func startSubscription(
        _ connection: ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64
    ) {
        subscriptions.withLock { $0.append((connection, initialEvents, afterSeq)) }
    }
    func stream(_ books: BookStreamEncoder, to connection: ReplyTarget) {
        var books = books
        switch try? MessageDecoder().decode(books.encodeRest()) {
        case .reply(let reply): replies.withLock { $0.append((connection, reply)) }
        case .event(let snapshot):
            subscriptions.withLock { all in
                if let k = all.lastIndex(where: { $0.0 == connection }) { all[k].1.append(snapshot) }
            }
        case nil: Issue.record("a streamed message does not decode")
        }
    }
    func stopSubscription(_ connection: ReplyTarget, reply: Reply) {}
    func broadcast(_ change: SequencedChangeSet) { changes.withLock { $0.append(change) } }
    func broadcastHeartbeat(epoch: String, seq: UInt64) {}
    var statistics: ServerStatistics { ServerStatistics() }
}

struct SilentLog: LogBackend {
    func write(level: LogLevel, message: String, fields: [String: String]) {}
}

@Suite(.serialized) struct BookEngineTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory(prefix: "booksync-engine")
        path = directory.file("books.txt")
    }

    func write(_ text: String) {
        try? TestFiles.write(text, to: path)
    }

    func read() -> String {
        if case .present(let bytes, _) = FileReader.read(path) { return String(decoding: bytes, as: UTF8.self) }
        return "<missing>"
    }

    func make(confirmationMilliseconds: Int = 200) -> (BookEngine, RecordingChannel) {
        var configuration = DaemonConfiguration()
        configuration.filePath = path
        configuration.confirmationMilliseconds = confirmationMilliseconds
        let channel = RecordingChannel()
        let reconciler = BookEngine(
            configuration: configuration, store: TextBookStore(path: path),
            logger: Logger(backend: SilentLog()), channel: channel)
        reconciler.load()
        return (reconciler, channel)
    }

    func cleanUp() { directory.remove() }

    @Test func loadIsTheBaselineAndEditsAreBroadcast() {
        defer { cleanUp() }
        write("1|Dune|Herbert\n2|Emma|Austen\n")
        let (reconciler, channel) = make()
        #expect(reconciler.position.seq == 0)
        write("1|Dune|Frank Herbert\n2|Emma|Austen\n")
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        let changes = channel.changes.withLock { $0 }
        #expect(changes.count == 1)
        #expect(changes.first?.changes.updated.first?.new.author == "Frank Herbert")
        #expect(changes.first?.source == .file)
        // touch / repeated events: no change.
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        #expect(channel.changes.withLock { $0.count } == 1)
    }

    @Test func clientWritesAreReportedOnceAndKeepHandEdits() {
        defer { cleanUp() }
        write("# list\n1|Dune|Herbert\n")
        let (reconciler, channel) = make()
        // A hand edit the watcher has not reported yet, then a client insert.
        write("# list\n1|Dune|Herbert\n2|Emma|Austen\n")
        reconciler.handle(
            Request(id: "w", op: .insert, books: [BookDraft(name: "Ulysses", author: "Joyce")]),
            from: ReplyTarget(.socket, 1), peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
        reconciler.drain()
        // The daemon's own write, reported by the watcher afterwards, must not be reported again.
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        let changes = channel.changes.withLock { $0 }
        #expect(changes.map(\.source) == [.file, .client])
        #expect(changes.last?.changes.inserted.map(\.name) == ["Ulysses"])
        let reply = channel.replies.withLock { $0.last?.1 }
        #expect(reply?.ok == true)
        let id = reply?.result?.books?.first?.id ?? "?"
        #expect(read() == "# list\n1|Dune|Herbert\n2|Emma|Austen\n\(id)|Ulysses|Joyce\n")
    }

    /// Inserts into a file nobody else touched are appended without re-reading it first, and the
    /// watcher's events for those appends (compared later, on an untouched file) report nothing.
    @Test func insertsIntoAnUntouchedFileAreAppendedAndReportedOnce() {
        defer { cleanUp() }
        write("1|Dune|Herbert\n")
        let (reconciler, channel) = make()
        let peer = PeerCredentials(pid: 1, uid: 0, gid: 0)
        for (k, name) in ["Ulysses", "Emma", "Beloved"].enumerated() {
            reconciler.handle(
                Request(id: "w\(k)", op: .insert, books: [BookDraft(id: "c\(k)", name: name, author: "A")]),
                from: ReplyTarget(.socket, 1), peer: peer)
            reconciler.drain()
            if k == 1 { reconciler.fileEvent(.contentMayHaveChanged) }  // the watcher, late
        }
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        #expect(read() == "1|Dune|Herbert\nc0|Ulysses|A\nc1|Emma|A\nc2|Beloved|A\n")
        let changes = channel.changes.withLock { $0 }
        #expect(changes.map(\.source) == [.client, .client, .client])
        #expect(changes.map { $0.changes.inserted.map(\.id) } == [["c0"], ["c1"], ["c2"]])
        #expect(channel.replies.withLock { $0.allSatisfy { $0.1.ok } })
        // An edit by hand after all that is still reported, at once.
        write("1|Dune|Herbert\nc0|Ulysses|A\nc1|Emma|A\n")
        reconciler.fileEvent(.contentMayHaveChanged)
        #expect(channel.changes.withLock { $0.last?.changes.deleted.map(\.id) } == ["c2"])
    }

    @Test func unauthorizedWritesAreRefused() {
        defer { cleanUp() }
        write("1|Dune|Herbert\n")
        let (reconciler, channel) = make()
        reconciler.handle(
            Request(id: "w", op: .delete, ids: ["1"]), from: ReplyTarget(.socket, 1),
            peer: PeerCredentials(pid: 1, uid: 4242, gid: 4242))
        reconciler.drain()
        #expect(channel.replies.withLock { $0.last?.1.error?.code } == .permissionDenied)
        #expect(read() == "1|Dune|Herbert\n")
    }

    @Test func truncateThenRewriteReportsOnlyTheNetChange() async throws {
        defer { cleanUp() }
        write("1|A|B\n2|C|D\n3|E|F\n4|G|H\n")
        // A long confirmation period so that a loaded machine cannot make the pause look "still".
        let (reconciler, channel) = make(confirmationMilliseconds: 1500)
        write("")
        let truncated = MonotonicClock.seconds()
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        try await Task.sleep(for: .milliseconds(50))
        write("1|A|B\n2|C|D\n3|E|F\n4|G|X\n")
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        // Wait for the first change set (on a loaded machine a timer may fire late), and at least
        // until the truncation's confirmation period is over, so a late second one is seen too.
        await eventually(timeout: 15, interval: 0.05) {
            reconciler.drain()
            return !channel.changes.withLock { $0 }.isEmpty
        }
        let waited = MonotonicClock.seconds() - truncated
        try await Task.sleep(for: .milliseconds(max(200, Int((1.8 - waited) * 1000))))
        reconciler.drain()
        let changes = channel.changes.withLock { $0 }
        #expect(changes.count == 1)
        #expect(
            changes.first?.changes
                == ChangeSet(updated: [
                    BookUpdate(
                        old: Book(id: "4", name: "G", author: "H"),
                        new: Book(id: "4", name: "G", author: "X"))
                ]))
    }

    @Test func aDeletionThatStandsStillIsBelieved() async throws {
        defer { cleanUp() }
        write("1|A|B\n2|C|D\n")
        let (reconciler, channel) = make(confirmationMilliseconds: 200)
        unlink(path)
        reconciler.fileEvent(.removed)
        reconciler.drain()
        #expect(channel.changes.withLock { $0.isEmpty })
        try await Task.sleep(for: .milliseconds(450))
        reconciler.drain()
        #expect(channel.changes.withLock { $0.first?.changes.deleted.count } == 2)
    }

    @Test func handTypedRowsGetAnIDWithOneInsert() {
        defer { cleanUp() }
        write("1|A|B\n")
        let (reconciler, channel) = make()
        write("1|A|B\nEmma|Jane Austen\n")
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        let changes = channel.changes.withLock { $0 }
        #expect(changes.count == 1)
        let inserted = changes.first?.changes.inserted.first
        #expect(inserted?.name == "Emma")
        #expect(changes.first?.remapped.first?.temporaryID == "line:2")
        #expect(read() == "1|A|B\n\(inserted?.id ?? "?")|Emma|Jane Austen\n")
    }
}

extension BookEngineTests {
    @Test func aStaleSaveStandsAsAHandEdit() {
        defer { cleanUp() }
        write("1|Dune|Herbert\n2|Emma|Austen\n")
        let (reconciler, channel) = make()
        let stale = "1|Dune|Herbert\n2|Emma|J. Austen\n"  // a script's copy from before the client write, edited
        reconciler.handle(
            Request(id: "w", op: .insert, books: [BookDraft(name: "Ulysses", author: "Joyce")]),
            from: ReplyTarget(.socket, 1), peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
        reconciler.drain()
        write(stale)
        reconciler.fileEvent(.contentMayHaveChanged)
        reconciler.drain()
        let changes = channel.changes.withLock { $0 }
        #expect(changes.map(\.source) == [.client, .file])
        let inserted = changes.first?.changes.inserted.first
        #expect(
            changes.last?.changes
                == ChangeSet(
                    updated: [
                        BookUpdate(
                            old: Book(id: "2", name: "Emma", author: "Austen"),
                            new: Book(id: "2", name: "Emma", author: "J. Austen"))
                    ],
                    deleted: inserted.map { [$0] } ?? []))
        #expect(read() == stale, "the daemon never overwrites a hand edit")
    }
}
