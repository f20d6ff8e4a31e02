import BooksTestSupport
import Glibc
import Testing

/// `booksctl edit` against a real booksd, with `EDITOR` a shell script that edits with sed and,
/// for the concurrent cases, waits for a marker file while the test writes as another client.
@Suite("booksctl edit", .timeLimit(.minutes(3))) struct BooksctlEditTests {
    static let ctl = shellQuote(BuildProducts.booksctl)

    /// Writes `EDITOR` for `h`: applies `sed` to the file, then (when `waits`) creates
    /// `started` and waits until `go` exists, then exits with `status`.
    static func editor(_ h: DaemonHarness, sed: String, waits: Bool = false, status: Int = 0) throws -> String {
        let path = h.root + "/editor.sh"
        let wait =
            waits
            ? "touch \"$(dirname \"$0\")/started\"\nwhile [ ! -e \"$(dirname \"$0\")/go\" ]; do sleep 0.05; done\n" : ""
        try TestFiles.write(
            "#!/bin/sh\nsed -i \(shellQuote(sed)) \"$1\"\n\(wait)exit \(status)\n", to: path, mode: 0o755)
        return path
    }

    /// Starts `booksctl edit` with `editor` (temporary files in the test's `tmp`).
    static func edit(_ h: DaemonHarness, _ editor: String) async throws -> ChildResult {
        let tmp = h.directory.makeDirectory("tmp")
        return try await h.tools.shell(
            "TMPDIR=\(shellQuote(tmp)) EDITOR=\(shellQuote(editor)) \(ctl) --socket \(shellQuote(h.socket)) edit",
            timeout: 60)
    }

    static func temporaries(_ h: DaemonHarness) -> [String] { TestFiles.names(in: h.root + "/tmp") }

    @Test("others' writes while the editor is open survive: another book, another field of the same book, a new book")
    func concurrentWritesAreMerged() async throws {
        let h = try await DaemonHarness("edit-merge", books: Fixture.books(count: 5))
        defer { h.shutdown() }
        let editor = try Self.editor(
            h,
            sed:
                "s/|Dune|Frank Herbert/|Dune|F. Herbert/; s/|Book 3|/|Third|/; /|Book 4|/d; $a Middlemarch|George Eliot",
            waits: true)
        async let edited = Self.edit(h, editor)
        #expect(await eventually(timeout: 30) { TestFiles.exists(h.root + "/started") })
        try await h.tools.must(
            """
            \(Self.ctl) --socket \(shellQuote(h.socket)) update \(fixtureID(1)) --name 'Dune (1965)' &&
            \(Self.ctl) --socket \(shellQuote(h.socket)) update \(fixtureID(5)) --author 'Someone Else' &&
            \(Self.ctl) --socket \(shellQuote(h.socket)) add 'Emma' 'Jane Austen'
            """)
        try TestFiles.write("", to: h.root + "/go")
        let result = try await edited
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("saved at seq"), "\(result)")
        #expect(result.output.contains("merged with 1 book(s) changed meanwhile"), "\(result)")
        let books = h.fileBooks
        #expect(books[fixtureID(1)]?.name == "Dune (1965)", "the client's rename stands: \(h.fileText)")
        #expect(books[fixtureID(1)]?.author == "F. Herbert", "the editor's author too: \(h.fileText)")
        #expect(books[fixtureID(3)]?.name == "Third")
        #expect(books[fixtureID(4)] == nil, "the editor's delete")
        #expect(books[fixtureID(5)]?.author == "Someone Else", "another book's write survives")
        #expect(books.values.contains { $0.name == "Emma" }, "the client's insert survives: \(h.fileText)")
        #expect(books.values.contains { $0.name == "Middlemarch" && $0.author == "George Eliot" })
        #expect(Self.temporaries(h).isEmpty, "the temporary file is removed after a save")
        let unchanged = try await Self.edit(h, try Self.editor(h, sed: "s/^#/#/"))
        #expect(unchanged.status == 0 && unchanged.output.contains("no changes; nothing saved"), "\(unchanged)")
    }

    /// `booksctl edit` setting book 2's author to `Mine` while another client sets it to `Theirs`.
    static func conflictingEdit(_ h: DaemonHarness) async throws -> ChildResult {
        let editor = try Self.editor(h, sed: "s/|Book 2|Author 2/|Book 2|Mine/", waits: true)
        async let edited = Self.edit(h, editor)
        #expect(await eventually(timeout: 30) { TestFiles.exists(h.root + "/started") })
        try await h.tools.must("\(Self.ctl) --socket \(shellQuote(h.socket)) update \(fixtureID(2)) --author Theirs")
        try TestFiles.write("", to: h.root + "/go")
        return try await edited
    }

    @Test("the same field changed by both: the editor's value is written, the other printed, exit 6")
    func sameFieldConflict() async throws {
        let h = try await DaemonHarness("edit-conflict", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let result = try await Self.conflictingEdit(h)
        #expect(result.status == 6, "\(result)")
        #expect(
            result.output.contains(
                "conflict: book \(fixtureID(2)) author: yours 'Mine' is in the file; theirs was 'Theirs'"),
            "\(result)")
        #expect(result.output.contains("--author 'Theirs' puts it back"), "\(result)")
        #expect(h.fileBooks[fixtureID(2)]?.author == "Mine", "\(h.fileText)")
        #expect(h.fileBooks.count == 3)
    }

    @Test("a same-field conflict is kept by the daemon: listed, counted, kept over a restart, resolved with theirs")
    func sameFieldConflictIsKept() async throws {
        let h = try await DaemonHarness("edit-kept", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let result = try await Self.conflictingEdit(h)
        #expect(result.status == 6, "\(result)")
        #expect(result.output.contains("kept as conflict 1: booksctl resolve 1 --take theirs"), "\(result)")
        #expect(h.fileBooks[fixtureID(2)]?.author == "Mine", "\(h.fileText)")
        func listed() async throws -> [StaleSaveEditorTests.ListedConflict] {
            let conflicts = try await StaleSaveEditorTests.conflicts(h)
            #expect(conflicts.count == 1, "\(conflicts)")
            let c = try #require(conflicts.first)
            #expect(c.conflict == 1 && c.id == fixtureID(2) && c.field == "author", "\(c)")
            #expect(c.mine == "Mine" && c.theirs == "Theirs", "\(c)")
            return conflicts
        }
        _ = try await listed()
        let status = try await h.ctl(["status"])
        #expect(status.output.contains("1 (merged saves; the saver's value stands in the file)"), "\(status)")
        _ = h.daemon?.stop(grace: 5)
        try await h.startDaemon()
        _ = try await listed()
        let resolved = try await h.ctl(["resolve", "1", "--take", "theirs"])
        #expect(resolved.succeeded, "\(resolved)")
        #expect(await eventually(timeout: 8) { h.fileBooks[fixtureID(2)]?.author == "Theirs" }, "\(h.fileText)")
        #expect(try await StaleSaveEditorTests.conflicts(h).isEmpty)
    }

    @Test("an editor exiting non-zero, a bad line, or a daemon gone at the save write nothing and keep the file")
    func nothingIsLost() async throws {
        let h = try await DaemonHarness("edit-keep", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let before = h.fileText
        let failing = try await Self.edit(h, try Self.editor(h, sed: "s/|Book 2|/|Two|/", status: 3))
        #expect(failing.status == 1, "\(failing)")
        #expect(failing.output.contains("exited with status 3; nothing was saved; the edit is kept in"), "\(failing)")
        #expect(h.fileText == before)
        #expect(Self.temporaries(h).count == 1)
        let kept = h.root + "/tmp/" + (Self.temporaries(h).first ?? "")
        #expect(TestFiles.readText(kept)?.contains("|Two|") == true, "the edit is in the kept file")
        var info = stat()
        #expect(stat(kept, &info) == 0 && info.st_mode & 0o777 == 0o600, "private: mode 0600")

        let bad = try await Self.edit(h, try Self.editor(h, sed: "s/|Book 3|Author 3/|Book 3|A|B/"))
        #expect(bad.status == 1 && bad.output.contains("1 line(s) are not books"), "\(bad)")
        #expect(h.fileText == before)
        #expect(Self.temporaries(h).count == 2)

        let editor = try Self.editor(h, sed: "s/|Dune|/|Dune!|/", waits: true)
        async let edited = Self.edit(h, editor)
        #expect(await eventually(timeout: 30) { TestFiles.exists(h.root + "/started") })
        _ = h.daemon?.stop(grace: 5)
        try TestFiles.write("", to: h.root + "/go")
        let down = try await edited
        #expect(down.status == 3, "\(down)")
        #expect(down.output.contains("cannot connect"), "\(down)")
        #expect(down.output.contains("nothing was saved; the edit is kept in"), "\(down)")
        #expect(Self.temporaries(h).count == 3)
        #expect(h.fileText == before)
    }
}
