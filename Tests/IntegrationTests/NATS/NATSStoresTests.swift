import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// Stores and NATS together: every store of one booksd publishes to its own stream, bucket, api
/// subject and owner lease, including a store that appears in the watched folder at run time.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSStoresTests {
    /// `books.txt` (`default`), `<scratch>/fiction.txt` (`--store fiction`) and the watched folder
    /// `<scratch>/lists` (empty); the caller keeps `scratch` as long as the daemon.
    static func storesDaemon(_ server: NATSServerProcess) async throws -> (FeedDaemon, scratch: TemporaryDirectory) {
        let scratch = try TemporaryDirectory(prefix: "natsstores")
        let lists = scratch.makeDirectory("lists")
        try TestFiles.write("7|Emma|Jane Austen\n", to: scratch.path + "/fiction.txt")
        let daemon = try await FeedDaemon(
            rows: ["1|Dune|Frank Herbert"], settings: ["nats_url=\(server.url)"],
            arguments: ["--store", "fiction=\(scratch.path)/fiction.txt", "--dir", lists])
        return (daemon, scratch)
    }

    /// The stream of `store` holds its snapshot marker and `changes` change sets with the ids
    /// `<store>:<epoch>:<seq>` (`:snapshot` for the marker), and its bucket holds `books`.
    static func expectPublished(
        _ server: NATSServerProcess, store: String, changes: Int, books: [Book], log: @autoclosure () -> String
    ) async {
        var view = NATSStreamView()
        let complete = await eventually(timeout: 20, interval: 0.1) {
            view = (try? await NATSStreamView.read(url: server.url, store: store)) ?? NATSStreamView()
            return view.messages.filter { $0.event.event == .change }.count >= changes
        }
        #expect(complete, "store \(store): \(view.messages.map(\.messageID))\n\(log().suffix(3000))")
        let ids = view.messages.map { message in
            let event = message.event
            return "\(store):\(event.epoch):\(event.seq)" + (event.event == .snapshot ? ":snapshot" : "")
        }
        // Each id ends with booksd's token (`:t<hex>`), which nobody else can predict.
        let untokened = view.messages.compactMap(\.messageID).map { id in
            let fields = id.split(separator: ":")
            return (fields.last?.hasPrefix("t") == true ? fields.dropLast() : fields[...]).joined(separator: ":")
        }
        #expect(untokened == ids, "store \(store)")
        #expect(view.messages.allSatisfy { $0.messageID?.split(separator: ":").last?.hasPrefix("t") == true })
        #expect(view.messages.map(\.event.event) == [.snapshot] + Array(repeating: .change, count: changes))
        #expect(view.continuityProblems.isEmpty, "\(view.continuityProblems)")
        var bucket: [Book] = []
        #expect(
            await eventually(timeout: 10, interval: 0.1) {
                bucket = (try? await NATSStreamView.bucketBooks(url: server.url, store: store)) ?? []
                return bucket == books
            }, "bucket books_\(store): \(bucket), expected \(books)")
    }

    /// Waits until booksd published the snapshot marker of `store`, then until it can be read.
    /// The log is watched first: nats-server 2.9 (Debian 12) can crash on a message-get request
    /// for a stream still being created, so the stream is not read before booksd made it.
    static func waitForSnapshot(_ server: NATSServerProcess, _ daemon: FeedDaemon, store: String) async throws {
        let made = await eventually(timeout: 20, interval: 0.05) {
            daemon.log.contains("bucket books_\(store) reconciled")
        }
        var published = false
        if made {
            published = await eventually(timeout: 10, interval: 0.05) {
                (try? await NATSStreamView.read(url: server.url, store: store).messages.isEmpty) == false
            }
        }
        if !published {
            throw TestSupportError("booksd published nothing for the store \(store)\n\(daemon.log.suffix(3000))")
        }
    }

    /// Appends `book` to `books.txt` (the store `default`, holding Dune) and expects it published
    /// as the store's one change set after its snapshot marker.
    static func expectDefaultStorePublishes(_ book: Book, _ server: NATSServerProcess, _ daemon: FeedDaemon) async {
        do { try daemon.handAppend("\(book.id)|\(book.name)|\(book.author)") } catch {
            Issue.record("cannot append: \(error)")
            return
        }
        await expectPublished(
            server, store: "default", changes: 1, books: [Book(id: "1", name: "Dune", author: "Frank Herbert"), book],
            log: daemon.log)
    }

    /// The value of the owner lease of `store` (`books_<store>_owner`, key `owner`), nil when none.
    static func owner(_ server: NATSServerProcess, store: String) async -> String? {
        await NATSBooksClient.onThread { () -> String? in
            let bucket = try? NATSStreamView.connect(server.url).jetStream().keyValue("books_\(store)_owner")
            guard let value = try? bucket?.get("owner") else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
    }

    @Test func twoStoresPublishToTheirOwnSubjectsBucketsAndLeases() async throws {
        let server = try NATSServerProcess()
        let (daemon, scratch) = try await Self.storesDaemon(server)
        // Edits after each store's snapshot marker are change sets of their own.
        for store in ["default", "fiction"] { try await Self.waitForSnapshot(server, daemon, store: store) }
        try daemon.handAppend("2|Emma|Austen")
        let fictionFile = scratch.path + "/fiction.txt"
        try TestFiles.append("8|Walden|Thoreau\n9|Kim|Kipling\n", to: fictionFile)
        await Self.expectPublished(
            server, store: "default", changes: 1,
            books: [
                Book(id: "1", name: "Dune", author: "Frank Herbert"), Book(id: "2", name: "Emma", author: "Austen"),
            ],
            log: daemon.log)
        await Self.expectPublished(
            server, store: "fiction", changes: 1,
            books: [
                Book(id: "7", name: "Emma", author: "Jane Austen"), Book(id: "8", name: "Walden", author: "Thoreau"),
                Book(id: "9", name: "Kim", author: "Kipling"),
            ],
            log: daemon.log)
        // One owner lease per store.
        for store in ["default", "fiction"] {
            let owner = await Self.owner(server, store: store)
            #expect(owner?.contains("\"epoch\"") == true, "\(store): \(owner ?? "no owner")")
        }
    }

    @Test func remoteRequestsReachEachStoresOwnEngine() async throws {
        let server = try NATSServerProcess()
        let (daemon, scratch) = try await Self.storesDaemon(server)
        // Each store answers once it holds its lease, i.e. once its snapshot marker is out.
        for store in ["default", "fiction"] { try await Self.waitForSnapshot(server, daemon, store: store) }
        let fictionFile = scratch.path + "/fiction.txt"
        func remote(_ arguments: [String]) async throws -> ChildResult {
            var result = try await ChildProcess.run(
                [BuildProducts.booksctl, "--nats", server.url] + arguments, timeout: 20)
            // Only the lease holder subscribes to the api subject (a flush after the lease): retry briefly.
            for _ in 0..<50 where !result.succeeded && result.output.contains("no booksd answers") {
                try await Task.sleep(for: .milliseconds(200))
                result = try await ChildProcess.run(
                    [BuildProducts.booksctl, "--nats", server.url] + arguments, timeout: 20)
            }
            return result
        }
        let got = try await remote(["--store", "fiction", "get", "7", "--json"])
        #expect(got.succeeded && got.output.contains("\"Emma\""), "\(got)")
        let missing = try await remote(["--store", "default", "get", "7"])
        #expect(missing.status == 5, "book 7 is fiction's, not default's: \(missing)")
        let added = try await remote(["--store", "fiction", "add", "Persuasion", "Austen"])
        #expect(added.succeeded, "\(added)")
        let addedDefault = try await remote(["--store", "default", "add", "Solaris", "Lem"])
        #expect(addedDefault.succeeded, "\(addedDefault)")
        let fictionText = TestFiles.readText(fictionFile) ?? ""
        let defaultText = try daemon.readFile()
        #expect(fictionText.contains("|Persuasion|Austen") && !fictionText.contains("Solaris"), "\(fictionText)")
        #expect(defaultText.contains("|Solaris|Lem") && !defaultText.contains("Persuasion"), "\(defaultText)")
    }

    @Test func aStoreAddedToTheWatchedFolderStartsPublishingAndARemovedOneStops() async throws {
        let server = try NATSServerProcess()
        let (daemon, scratch) = try await Self.storesDaemon(server)
        let lists = scratch.path + "/lists"
        try TestFiles.write("5|Ulysses|Joyce\n", to: lists + "/added.txt")
        // A store that appears starts empty: its stream begins with the marker of its empty
        // seq 0, then its books inserted (seq 1). The lease is taken once its stream exists (nats-server 2.9 must not
        // be asked for a message of a stream still being created).
        #expect(await eventually(timeout: 20, interval: 0.1) { await Self.owner(server, store: "added") != nil })
        await Self.expectPublished(
            server, store: "added", changes: 1, books: [Book(id: "5", name: "Ulysses", author: "Joyce")],
            log: daemon.log)
        try TestFiles.append("6|Dubliners|Joyce\n", to: lists + "/added.txt")
        await Self.expectPublished(
            server, store: "added", changes: 2,
            books: [
                Book(id: "5", name: "Ulysses", author: "Joyce"), Book(id: "6", name: "Dubliners", author: "Joyce"),
            ],
            log: daemon.log)

        #expect(unlink(lists + "/added.txt") == 0)
        #expect(
            await eventually(timeout: 20, interval: 0.1) {
                daemon.log.contains("NATS: store 'added' removed")
            }, "\(daemon.log.suffix(3000))")
        // The removed store's publisher gave its lease up (logged after its thread ended), after
        // publishing its last change set: its books deleted.
        #expect(await Self.owner(server, store: "added") == nil)
        await Self.expectPublished(server, store: "added", changes: 3, books: [], log: daemon.log)
        // The other stores go on publishing.
        await Self.expectDefaultStorePublishes(Book(id: "3", name: "Solaris", author: "Lem"), server, daemon)
    }

    /// A store that cannot publish (its stream exists with other settings) is logged and retried
    /// on its own thread; the other stores publish and every store serves locally.
    @Test func aStoreThatCannotPublishDelaysNoOtherStore() async throws {
        let server = try NATSServerProcess()
        let made: Result<Void, NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                try NATSStreamView.connect(server.url).jetStream().addStream(
                    NATSStreamSettings(
                        name: "books_blocked_changes", subjects: ["books.blocked.changes"], maxAgeSeconds: 60,
                        duplicateWindowSeconds: 30))
            }
        }
        try made.get()
        let (daemon, scratch) = try await Self.storesDaemon(server)
        for store in ["default", "fiction"] { try await Self.waitForSnapshot(server, daemon, store: store) }
        try TestFiles.write("5|Ulysses|Joyce\n", to: scratch.path + "/lists/blocked.txt")
        #expect(
            await eventually(timeout: 20, interval: 0.1) {
                daemon.log.contains("books_blocked_changes exists with a conflicting configuration")
            }, "\(daemon.log.suffix(3000))")
        await Self.expectDefaultStorePublishes(Book(id: "2", name: "Emma", author: "Austen"), server, daemon)
        let listed = try await ChildProcess.run(
            [BuildProducts.booksctl, "--socket", daemon.socket, "--store", "blocked", "list", "--json"], timeout: 20)
        #expect(listed.succeeded && listed.output.contains("\"Ulysses\""), "the store serves locally: \(listed)")
    }
}
