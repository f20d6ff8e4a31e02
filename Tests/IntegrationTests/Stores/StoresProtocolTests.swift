import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// Protocol version 2 across stores, end to end: real editors in several stores reaching one
/// `booksctl subscribe` of every store (each line naming its store), `--store` on the commands,
/// the usage error without it, `stores`, a version-1 client on `default`, stores appearing and
/// disappearing in a watched folder, and a resume across a daemon restart.
@Suite("Stores protocol", .timeLimit(.minutes(3))) struct StoresProtocolTests {
    /// `books.txt` (the store `default`, 20 books), `fiction.txt` (`--store fiction`, 1 book) and
    /// the folder `lists/` holding `a.txt` (the store `a`, 1 book).
    func harness(_ name: String) async throws -> DaemonHarness {
        let h = try await DaemonHarness(name, confirmationMs: 300, start: false)
        try TestFiles.write("7|Emma|Jane Austen\n", to: h.dir + "/fiction.txt")
        let lists = h.directory.makeDirectory("lists")
        try TestFiles.write("9|Ulysses|James Joyce\n", to: lists + "/a.txt")
        h.extraDaemonArguments = ["--store", "fiction=\(h.dir)/fiction.txt", "--dir", lists]
        try await h.startDaemon()
        return h
    }

    static let emmaUpper = TestBook(id: "7", name: "Emma", author: "Jane AUSTEN")
    static let dubliners = TestBook(id: "10", name: "Dubliners", author: "James Joyce")

    @Test("subscribe --json to one store (named, or a daemon's only one) ends each line with its store")
    func oneStoreLinesNameTheirStore() async throws {
        let single = try await DaemonHarness("stores-v2-one", books: [])
        defer { single.shutdown() }
        let sub = try await single.subscribe(initialCount: 0)
        try await single.tools.must("printf '10|Dubliners|James Joyce\\n' >> books.txt")
        await sub.expectEvents([.insert(Self.dubliners).in("default")])

        let h = try await harness("stores-v2-one-named")
        defer { h.shutdown() }
        let fiction = try await h.subscribe(initialCount: 1, store: "fiction")
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        await fiction.expectEvents([.update(Self.emmaUpper).in("fiction")])
    }

    @Test("real editors in three stores reach one subscriber of every store, each line naming its store")
    func editorsAcrossStores() async throws {
        let h = try await harness("stores-v2-editors")
        defer { h.shutdown() }
        let sub = try await h.subscribe(initialCount: 22)
        try await h.tools.must("vim -Es -c '%s/Frank Herbert/Frank HERBERT/' -c wq books.txt")
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        try await h.tools.must("printf '10|Dubliners|James Joyce\\n' >> ../lists/a.txt")
        await sub.expectEvents([
            .update(Books.duneUpper).in("default"), .update(Self.emmaUpper).in("fiction"),
            .insert(Self.dubliners).in("a"),
        ])
        // Per-store sequence numbers: each store's first edit is its seq 1.
        #expect(sub.received.allSatisfy { $0.seq == 1 }, "\(sub.received)")
    }

    @Test("--store, BOOKS_STORE, stores; no store with several is a usage error listing them")
    func storeOptions() async throws {
        let h = try await harness("stores-v2-options")
        defer { h.shutdown() }
        let listed = try await h.ctl(["stores", "--json"])
        #expect(listed.succeeded, "\(listed)")
        let names = listed.output.split(separator: "\n").compactMap { line in
            (try? JSONDecoder().decode(StoreRow.self, from: Data(line.utf8)))?.name
        }
        #expect(names == ["a", "default", "fiction"], "\(listed)")
        let table = try await h.ctl(["stores"])
        #expect(table.succeeded && table.output.contains("fiction") && table.output.contains("present"))

        let ambiguous = try await h.ctl(["list"])
        #expect(ambiguous.status == 2, "\(ambiguous)")
        #expect(ambiguous.output.contains("a, default, fiction"), "\(ambiguous)")
        let unknown = try await h.ctl(["--store", "nope", "list"])
        #expect(unknown.status == 2 && unknown.output.contains("nope"), "\(unknown)")

        let fiction = try await h.ctl(["list", "--json", "-s", "fiction"])
        #expect(fiction.succeeded && fiction.output.contains("\"Emma\"") && !fiction.output.contains("Dune"))
        let added = try await h.tools.must("BOOKS_STORE=a '\(BuildProducts.booksctl)' add Kim 'Rudyard Kipling'")
        #expect(added.succeeded, "\(added)")
        #expect(await eventually(timeout: 5) { (TestFiles.readText(h.root + "/lists/a.txt") ?? "").contains("Kim") })
        #expect(!(TestFiles.readText(h.file) ?? "").contains("Kim"), "the write went to store a only")
        let twice = try await h.ctl(["-s", "a", "-s", "fiction", "list"])
        #expect(twice.status == 2, "\(twice)")
        // status and ping need no store: status shows each store.
        let status = try await h.ctl(["status", "--json"])
        let statuses = try? JSONDecoder().decode([String: DaemonStatus].self, from: Data(status.output.utf8))
        #expect(statuses?.keys.sorted() == ["a", "default", "fiction"], "\(status)")
        #expect(statuses?["default"]?.bookCount == 20 && statuses?["fiction"]?.bookCount == 1)
        let ping = try await h.ctl(["ping"])
        #expect(ping.succeeded, "\(ping)")
    }

    @Test("a version-1 client is served the store default, without store fields")
    func versionOneClient() async throws {
        let h = try await harness("stores-v2-v1")
        defer { h.shutdown() }
        let client = try LineClient(path: h.socket)
        #expect(client.send(#"{"id":"h","op":"hello","version":1}"#))
        #expect(client.readLine(timeout: 5)?.contains("\"protocolVersion\":1") == true)
        #expect(client.send(#"{"id":"l","op":"list","limit":1}"#))
        let reply = client.readLine(timeout: 5) ?? ""
        #expect(reply.contains("Dune") && !reply.contains("\"store\""), "\(reply)")
        #expect(client.send(#"{"id":"s","op":"subscribe","snapshot":false}"#))
        _ = client.readLine(timeout: 5)
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        let change = client.readLine(timeout: 5, containing: "\"change\"") ?? ""
        #expect(change.contains("HERBERT") && !change.contains("\"store\""), "\(change)")
        #expect(client.readLine(timeout: 1, containing: "AUSTEN") == nil, "other stores do not reach it")
    }

    @Test("watched folder: created, moved in, moved out and removed stores reach a subscriber of every store")
    func folderStoresReachSubscribers() async throws {
        let h = try await harness("stores-v2-folder")
        defer { h.shutdown() }
        let sub = try await h.subscribe(initialCount: 22)
        let lists = h.root + "/lists"
        try TestFiles.write("1|A|B\n", to: lists + "/b.txt")
        await sub.expectEvents([.insert(TestBook(id: "1", name: "A", author: "B")).in("b")])
        try await h.tools.must(
            "printf '[{\"id\":\"2\",\"name\":\"C\",\"author\":\"D\"}]' > ../c.json && mv ../c.json ../lists/")
        await sub.expectEvents([.insert(TestBook(id: "2", name: "C", author: "D")).in("c")])
        for noise in [".b.txt.swp", "b.txt~", "4913", "#b.txt#", ".b.txt.XyZ123", "sedAb12Cd"] {
            try TestFiles.write("x|y|z\n", to: lists + "/" + noise)
        }
        try await h.tools.must("mv ../lists/b.txt ../b-away.txt && rm ../lists/c.json")
        // Editor files never become stores: nothing arrives for them. b and c are gone (their books
        // may first be reported deleted, as for any file that disappears, when the engine's
        // confirmation ends before the folder's).
        let after = await sub.drain(quiet: 1.5)
        #expect(after.allSatisfy { ["b", "c"].contains($0.store ?? "") && $0.kind == "delete" }, "\(after)")
        let stores = try await h.ctl(["stores", "--json"])
        #expect(stores.succeeded)
        #expect(stores.output.split(separator: "\n").count == 3, "\(stores)")
        let stderr = TestFiles.readText(sub.logPath) ?? ""
        #expect(stderr.contains("store b added") && stderr.contains("store c added"), "\(stderr)")
        #expect(stderr.contains("store b removed") && stderr.contains("store c removed"), "\(stderr)")
    }

    @Test("a store that appears is announced like one that leaves: its books as inserts, then as deletes")
    func appearingStoreIsAnnouncedLikeALeavingOne() async throws {
        let h = try await harness("stores-v2-appear")
        defer { h.shutdown() }
        let mirror = try await h.subscribe(initial: false, options: ["--mirror"])
        let plain = try await h.subscribe(initial: false)
        // Both feeds are live once an edit reaches them.
        let persuasion = TestBook(id: "11", name: "Persuasion", author: "Jane Austen")
        try await h.tools.must("printf '11|Persuasion|Jane Austen\\n' >> fiction.txt")
        for sub in [mirror, plain] { await sub.expectEvents([.insert(persuasion).in("fiction")]) }
        let books = (1...3).map { TestBook(id: "c\($0)", name: "Book \($0)", author: "Author") }
        try TestFiles.write(books.map { "\($0.id)|\($0.name)|\($0.author)\n" }.joined(), to: h.root + "/c.txt")
        func inStore(_ sub: Subscriber) -> [String: TestBook] { sub.state.filter { $0.key.hasPrefix("c/") } }
        let folder = Dictionary(uniqueKeysWithValues: books.map { ("c/\($0.id)", $0) })
        for round in 1...2 {
            try await h.tools.must("mv ../c.txt ../lists/")
            for sub in [mirror, plain] {
                await sub.expectEvents(books.map { .insert($0).in("c") }, timeout: 15, "round \(round): c appears")
                #expect(inStore(sub) == folder, "round \(round)")
            }
            try await h.tools.must("mv ../lists/c.txt ../c.txt")
            for sub in [mirror, plain] {
                await sub.expectEvents(books.map { .delete($0).in("c") }, timeout: 15, "round \(round): c leaves")
                #expect(inStore(sub).isEmpty, "round \(round)")
            }
        }
    }

    @Test("a subscriber of every store resumes each store across a daemon restart")
    func resumeAcrossRestart() async throws {
        let h = try await harness("stores-v2-restart")
        defer { h.shutdown() }
        let sub = try await h.subscribe(initialCount: 22)
        try await h.tools.must("sed -i s/Austen/AUSTEN/ fiction.txt")
        await sub.expectEvents([.update(Self.emmaUpper).in("fiction")])
        _ = h.daemon?.stop(grace: 5)
        // Edits while booksd is down, in two stores.
        try await h.tools.must("sed -i 's/Frank Herbert/Frank HERBERT/' books.txt")
        try await h.tools.must("printf '10|Dubliners|James Joyce\\n' >> ../lists/a.txt")
        try await h.startDaemon()
        let missed = await sub.expectEvents(
            [.update(Books.duneUpper).in("default"), .insert(Self.dubliners).in("a")], timeout: 15)
        #expect(missed.allSatisfy { $0.source == "file" || $0.source == "resync" }, "\(missed)")
        // Live again in every store, nothing twice.
        try await h.tools.must("sed -i s/AUSTEN/Austen/ fiction.txt")
        await sub.expectEvents([.update(TestBook(id: "7", name: "Emma", author: "Jane Austen")).in("fiction")])
    }
}

/// One line of `booksctl stores --json` (the parts the tests look at).
struct StoreRow: Decodable {
    let name: String
    let state: String
    let bookCount: Int
}
