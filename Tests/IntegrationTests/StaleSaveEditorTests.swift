import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// Saves from a stale editor buffer, with real vim in tmux: a client writes while vim has the
/// file open; vim's save is merged with those writes (its swap file names the version it
/// loaded), and deliberate reverts (no evidence of a stale buffer) stand.
@Suite("Stale saves", .timeLimit(.minutes(3))) struct StaleSaveEditorTests {
    static let middlemarch = (name: "Middlemarch", author: "George Eliot")

    /// Opens `books.txt` in vim in tmux and waits until its swap file is beside it.
    static func openVim(_ h: DaemonHarness) async throws -> TmuxSession {
        let tmux = try await TmuxSession(tools: h.tools, command: "vim books.txt")
        try await tmux.waitForScreen(containing: "Frank Herbert")
        let swapped = await eventually(timeout: 10, interval: 0.05) { TestFiles.exists(h.dir + "/.books.txt.swp") }
        #expect(swapped, "vim's swap file never appeared")
        return tmux
    }

    /// A client inserts a book, renames book 2 and deletes book 3; returns the inserted id.
    static func clientWrites(_ h: DaemonHarness, _ sub: Subscriber) async throws -> String {
        let added = try await h.ctl(["add", middlemarch.name, middlemarch.author])
        #expect(added.succeeded, "booksctl add: \(added)")
        let id = added.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
        let renamed = try await h.ctl(["update", Books.n(2).id, "--name", "Renamed By Client"])
        #expect(renamed.succeeded, "booksctl update: \(renamed)")
        let deleted = try await h.ctl(["delete", Books.n(3).id])
        #expect(deleted.succeeded, "booksctl delete: \(deleted)")
        _ = await sub.expectEvents(
            [
                .init(kind: "insert", id: id, name: middlemarch.name, author: middlemarch.author, source: "client"),
                .update(
                    TestBook(id: Books.n(2).id, name: "Renamed By Client", author: Books.n(2).author), source: "client"),
                .delete(Books.n(3), source: "client"),
            ], "client writes")
        return id
    }

    /// `:w` of a buffer the file changed under: vim asks, the user answers `y`.
    static func writeAnyway(_ tmux: TmuxSession) async throws {
        try await tmux.type(":w")
        try await tmux.send("Enter")
        try await tmux.waitForScreen(containing: "Do you really want to write to it")
        try await tmux.type("y")
    }

    static func quit(_ tmux: TmuxSession) async throws {
        try await tmux.send("Escape")
        try await tmux.type(":qa!")
        try await tmux.send("Enter")
        try await tmux.waitForExit()
    }

    @Test("vim answering y: the client's insert, update and delete survive, and the user's edit")
    func vimStaleSaveIsMerged() async throws {
        try await scenario("stale-vim") { h, sub in
            let tmux = try await Self.openVim(h)
            defer { tmux.kill() }
            let id = try await Self.clientWrites(h, sub)
            try await tmux.type(":%s/Frank Herbert/Frank HERBERT/")
            try await tmux.send("Enter")
            try await Self.writeAnyway(tmux)
            // Only the user's real change is reported: nothing kept is deleted or re-inserted.
            _ = await sub.expectEvents([.update(Books.duneUpper)], "vim's save, merged")
            let expected = Books.text(
                replacing: [
                    Books.dune.id: Books.duneUpper,
                    Books.n(2).id: TestBook(id: Books.n(2).id, name: "Renamed By Client", author: Books.n(2).author),
                    Books.n(3).id: nil,
                ],
                appending: [TestBook(id: id, name: Self.middlemarch.name, author: Self.middlemarch.author)])
            #expect(
                await eventually(timeout: 8, interval: 0.05) { h.fileText == expected },
                "file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
            try await Self.quit(tmux)
        }
    }

    @Test("a reloaded vim buffer (:e!) that deletes the client's row: the delete stands")
    func reloadedBufferDeleteStands() async throws {
        try await scenario("stale-vim-reload") { h, sub in
            let tmux = try await Self.openVim(h)
            defer { tmux.kill() }
            // vim's block 0 holds whole seconds and an append keeps the inode: a version written
            // within the same second as the one vim loaded cannot be told apart (the closest to
            // the save wins, which would keep the book). Cross a second boundary first.
            try await h.tools.must("sleep 1.1")
            let added = try await h.ctl(["add", Self.middlemarch.name, Self.middlemarch.author])
            let id = added.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
            let inserted = TestBook(id: id, name: Self.middlemarch.name, author: Self.middlemarch.author)
            _ = await sub.expectEvents([.insert(inserted, source: "client")], "client add")
            try await tmux.type(":e!")
            try await tmux.send("Enter")
            try await tmux.waitForScreen(containing: Self.middlemarch.name)
            try await tmux.type(":g/Middlemarch/d")
            try await tmux.send("Enter")
            try await tmux.type(":w")
            try await tmux.send("Enter")
            _ = await sub.expectEvents([.delete(inserted)], "the deliberate delete")
            #expect(h.fileText == Books.text())
            try await Self.quit(tmux)
        }
    }

    @Test("git checkout -- books.txt: stands as written")
    func gitCheckoutStands() async throws {
        try await scenario("stale-git") { h, sub in
            try await h.tools.must(
                "git init -q . && git -c user.email=t@example.org -c user.name=t commit -q --allow-empty -m init "
                    + "&& git add books.txt && git -c user.email=t@example.org -c user.name=t commit -q -m books")
            let added = try await h.ctl(["add", Self.middlemarch.name, Self.middlemarch.author])
            let id = added.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
            let inserted = TestBook(id: id, name: Self.middlemarch.name, author: Self.middlemarch.author)
            _ = await sub.expectEvents([.insert(inserted, source: "client")], "client add")
            try await h.tools.must("git checkout -- books.txt")
            _ = await sub.expectEvents([.delete(inserted)], "the checkout")
            #expect(h.fileText == Books.text())
        }
    }

    @Test("cp of a backup: stands as written")
    func copyOfABackupStands() async throws {
        try await scenario("stale-cp") { h, sub in
            try await h.tools.must("cp books.txt backup.txt")
            let added = try await h.ctl(["add", Self.middlemarch.name, Self.middlemarch.author])
            let id = added.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
            let inserted = TestBook(id: id, name: Self.middlemarch.name, author: Self.middlemarch.author)
            _ = await sub.expectEvents([.insert(inserted, source: "client")], "client add")
            try await h.tools.must("cp backup.txt books.txt")
            _ = await sub.expectEvents([.delete(inserted)], "the restored backup")
            #expect(h.fileText == Books.text())
            #expect(try await h.status().reverts?.isEmpty == false, "status names the client write it undid")
        }
    }

    /// vim opens the file, the client changes book 2 (rename), then vim changes book 2 too and
    /// saves anyway; `prepare` runs first (once the daemon is up), `body` after the save was merged.
    func vimAndClientOnBookTwo(
        _ name: String, vimCommand: String, expected: TestBook,
        _ body: (DaemonHarness, Subscriber) async throws -> Void = { _, _ in },
        prepare: (DaemonHarness) async throws -> Void = { _ in }
    ) async throws {
        try await scenario(name) { h, sub in
            try await prepare(h)
            let tmux = try await Self.openVim(h)
            defer { tmux.kill() }
            let two = Books.n(2)
            let renamed = try await h.ctl(["update", two.id, "--name", "Client Title"])
            #expect(renamed.succeeded, "booksctl update: \(renamed)")
            _ = await sub.expectEvents(
                [.update(TestBook(id: two.id, name: "Client Title", author: two.author), source: "client")], "client")
            try await tmux.type(vimCommand)
            try await tmux.send("Enter")
            try await Self.writeAnyway(tmux)
            _ = await sub.expectEvents([.update(expected)], "vim's save, merged")
            #expect(
                await eventually(timeout: 8, interval: 0.05) { h.fileBooks[two.id] == expected },
                "file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
            try await body(h, sub)
            try await Self.quit(tmux)
        }
    }

    @Test("field-level merge: the client renames, vim changes the author of the same book: both")
    func fieldLevelMerge() async throws {
        let two = Books.n(2)
        try await vimAndClientOnBookTwo(
            "stale-vim-fields", vimCommand: ":%s/|\(two.author)$/|Vim Author/",
            expected: TestBook(id: two.id, name: "Client Title", author: "Vim Author"))
    }

    @Test("same-field conflict: the saver's value in the file, the other in status' conflicts")
    func sameFieldConflict() async throws {
        let two = Books.n(2)
        try await vimAndClientOnBookTwo(
            "stale-vim-conflict", vimCommand: ":%s/|\(two.name)|/|Vim Title|/",
            expected: TestBook(id: two.id, name: "Vim Title", author: two.author)
        ) { h, _ in
            let status = try await h.status()
            let conflict = try #require(status.conflicts?.first, "no conflict in status")
            #expect(status.conflicts?.count == 1)
            #expect(conflict.conflict.id == two.id && conflict.conflict.kind == "name")
            #expect(conflict.conflict.mine?.name == "Vim Title" && conflict.conflict.theirs?.name == "Client Title")
            let text = try await h.ctl(["status"])
            #expect(text.output.contains("conflicts"), "\(text)")
        }
    }

    @Test("a same-field conflict is listed by booksctl conflicts and settled by resolve --take theirs, durably")
    func conflictListedAndResolved() async throws {
        let two = Books.n(2)
        try await vimAndClientOnBookTwo(
            "stale-vim-resolve", vimCommand: ":%s/|\(two.name)|/|Vim Title|/",
            expected: TestBook(id: two.id, name: "Vim Title", author: two.author)
        ) { h, sub in
            let listed = try await Self.conflicts(h)
            #expect(listed.count == 1, "\(listed)")
            let conflict = try #require(listed.first, "no conflict listed")
            #expect(conflict.id == two.id && conflict.field == "name", "\(conflict)")
            #expect(conflict.mine == "Vim Title" && conflict.theirs == "Client Title", "\(conflict)")
            let table = try await h.ctl(["conflicts"])
            #expect(table.succeeded && table.output.contains("Client Title"), "\(table)")
            let unknown = try await h.ctl(["resolve", "999", "--take", "mine"])
            #expect(unknown.status == 5 && unknown.output.contains("no unsettled conflict 999"), "\(unknown)")
            let resolved = try await h.ctl(["resolve", two.id, "--take", "theirs"])
            #expect(resolved.succeeded, "booksctl resolve: \(resolved)")
            try await checkResolved(h, sub)
        }
    }

    /// After the conflict above was settled by taking theirs: the client's title is back in the
    /// file and on the feed, and no conflict is kept, also after a restart.
    func checkResolved(_ h: DaemonHarness, _ sub: Subscriber) async throws {
        let two = Books.n(2)
        let theirs = TestBook(id: two.id, name: "Client Title", author: two.author)
        _ = await sub.expectEvents([.update(theirs, source: "client")], "resolve --take theirs")
        #expect(await eventually(timeout: 8, interval: 0.05) { h.fileBooks[two.id] == theirs }, "\(h.fileText)")
        #expect(try await Self.conflicts(h).isEmpty)
        _ = h.daemon?.stop(grace: 5)
        try await h.startDaemon()
        #expect(try await Self.conflicts(h).isEmpty, "a settled conflict came back after a restart")
    }

    /// One line of `booksctl conflicts --json`.
    struct ListedConflict: Decodable {
        var conflict: Int
        var id: String
        var field: String
        var mine: String?
        var theirs: String?
    }

    static func conflicts(_ h: DaemonHarness) async throws -> [ListedConflict] {
        let result = try await h.ctl(["conflicts", "--json"])
        #expect(result.succeeded, "booksctl conflicts --json: \(result)")
        return try result.output.split(separator: "\n").map {
            try JSONDecoder().decode(ListedConflict.self, from: Data($0.utf8))
        }
    }

    @Test("two vims on one file: both edits kept")
    func twoVims() async throws {
        try await scenario("stale-two-vims") { h, sub in
            let first = try await Self.openVim(h)
            defer { first.kill() }
            let second = try await TmuxSession(tools: h.tools, command: "vim books.txt")
            defer { second.kill() }
            try await second.waitForScreen(containing: "Found a swap file")
            try await second.type("e")
            try await second.waitForScreen(containing: "Frank Herbert")
            let four = Books.n(4)
            let five = Books.n(5)
            let fourEdited = TestBook(id: four.id, name: four.name, author: "Second Vim")
            let fiveEdited = TestBook(id: five.id, name: five.name, author: "First Vim")
            try await second.type(":%s/|\(four.author)$/|Second Vim/")
            try await second.send("Enter")
            try await second.type(":w")
            try await second.send("Enter")
            _ = await sub.expectEvents([.update(fourEdited)], "the second vim's save")
            try await first.type(":%s/|\(five.author)$/|First Vim/")
            try await first.send("Enter")
            try await Self.writeAnyway(first)
            _ = await sub.expectEvents([.update(fiveEdited)], "the first vim's save, merged")
            #expect(
                await eventually(timeout: 8, interval: 0.05) {
                    h.fileText == Books.text(replacing: [four.id: fourEdited, five.id: fiveEdited])
                }, "file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
            try await Self.quit(first)
            try await Self.quit(second)
        }
    }
}
