import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

/// More evidence of which version a save came from, with real editors in tmux: the file
/// versions kept across a daemon restart, nano's `--locking` lock, Emacs' `.#` lock. Each starts
/// from a file a client writes to while the editor has it open; the client's writes survive the
/// editor's save.
@Suite("Stale saves: more evidence", .timeLimit(.minutes(3))) struct StaleSaveEvidenceTests {
    typealias Vim = StaleSaveEditorTests

    /// The fixture after the client's writes (``StaleSaveEditorTests/clientWrites(_:_:)``) and
    /// Dune's author upper-cased by the editor.
    static func mergedText(inserted id: String) -> String {
        Books.text(
            replacing: [
                Books.dune.id: Books.duneUpper,
                Books.n(2).id: TestBook(id: Books.n(2).id, name: "Renamed By Client", author: Books.n(2).author),
                Books.n(3).id: nil,
            ],
            appending: [TestBook(id: id, name: Vim.middlemarch.name, author: Vim.middlemarch.author)])
    }

    /// The editor's save was merged: only its own change on the feed, everyone's in the file.
    static func expectMerged(_ h: DaemonHarness, _ sub: Subscriber, inserted id: String, _ what: String) async {
        _ = await sub.expectEvents([.update(Books.duneUpper)], "\(what), merged")
        #expect(
            await eventually(timeout: 8, interval: 0.05) { h.fileText == Self.mergedText(inserted: id) },
            "\(what): file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
    }

    @Test("vim opens, a client writes, booksd restarts, vim saves anyway: merged")
    func mergeAfterRestart() async throws {
        try await scenario("stale-restart", checkConvergence: false) { h, sub in
            let tmux = try await Vim.openVim(h)
            defer { tmux.kill() }
            let id = try await Vim.clientWrites(h, sub)
            sub.stop()
            _ = h.daemon?.stop(grace: 5)
            try await h.startDaemon()
            let again = try await h.subscribe()
            try await tmux.type(":%s/Frank Herbert/Frank HERBERT/")
            try await tmux.send("Enter")
            try await Vim.writeAnyway(tmux)
            await Self.expectMerged(h, again, inserted: id, "vim's save after the restart")
            try await Vim.quit(tmux)
            again.expectConverged(to: h.fileBooks)
            Self.expectNoContentKept(h)
        }
    }

    /// The merge needs no copy of the file per version: what the state directory keeps beside
    /// the saved history (file versions, lock holders) names versions, and at most the books a
    /// merged save changed (its overlay), never the books nobody touched.
    static func expectNoContentKept(_ h: DaemonHarness) {
        for name in ["file-versions", "lock-holders"] {
            let text = TestFiles.readText(h.dir + "/.books.txt.history/" + name) ?? ""
            let copied = (4...20).map { "\"Book \($0)\"" }.filter(text.contains)
            #expect(copied.isEmpty, "\(name) holds untouched books \(copied): \(text)")
        }
    }

    /// Upper-cases Dune's author in the editor: line 1's last 7 characters retyped.
    static func editDune(_ tmux: TmuxSession) async throws {
        try await tmux.send("End")
        for _ in 0..<7 { try await tmux.send("BSpace") }
        try await tmux.type("HERBERT")
        try await tmux.waitForScreen(containing: "Frank HERBERT")
    }

    /// Waits until nano shows the file and its lock is there, then for the next second: nano
    /// compares whole seconds of the file's mtime, so writes landing in the second it opened the
    /// file would let it save without asking.
    static func nanoOpened(_ h: DaemonHarness, _ tmux: TmuxSession) async throws {
        try await tmux.waitForScreen(containing: "Frank Herbert")
        let opened = time(nil)
        #expect(await eventually(timeout: 10, interval: 0.05) { TestFiles.exists(h.dir + "/.books.txt.swp") })
        #expect(await eventually(timeout: 5, interval: 0.02) { time(nil) > opened })
    }

    /// nano upper-cases Dune's author and saves (`^O`, Enter), answering `y` to "File was
    /// modified since you opened it, continue saving?".
    static func nanoEditsAndSavesAnyway(_ tmux: TmuxSession) async throws {
        try await editDune(tmux)
        try await tmux.send("C-o")
        try await tmux.waitForScreen(containing: "File Name to Write")
        try await tmux.send("Enter")
        try await tmux.waitForScreen(containing: "continue saving?")
        try await tmux.type("y")
    }

    @Test("nano --locking: a client writes while nano has the file open, nano saves anyway: merged")
    func nanoStaleSaveIsMerged() async throws {
        try await scenario("stale-nano") { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "nano --locking books.txt")
            defer { tmux.kill() }
            try await Self.nanoOpened(h, tmux)
            let id = try await Vim.clientWrites(h, sub)
            try await Self.nanoEditsAndSavesAnyway(tmux)
            await Self.expectMerged(h, sub, inserted: id, "nano's save")
            try await tmux.send("C-x")
            try await tmux.waitForExit()
        }
    }

    @Test("nano --locking: a client writes, booksd restarts, nano saves anyway: merged (the lock's base was kept)")
    func nanoBaseSurvivesARestart() async throws {
        try await scenario("stale-nano-restart", checkConvergence: false) { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "nano --locking books.txt")
            defer { tmux.kill() }
            try await Self.nanoOpened(h, tmux)
            let id = try await Vim.clientWrites(h, sub)
            sub.stop()
            _ = h.daemon?.stop(grace: 5)
            try await h.startDaemon()
            let again = try await h.subscribe()
            try await Self.nanoEditsAndSavesAnyway(tmux)
            await Self.expectMerged(h, again, inserted: id, "nano's save after the restart")
            Self.expectNoContentKept(h)
            try await tmux.send("C-x")
            try await tmux.waitForExit()
            again.expectConverged(to: h.fileBooks)
        }
    }

    @Test("emacs: the buffer is modified (its .# lock), a client writes, emacs saves anyway: merged")
    func emacsStaleSaveIsMerged() async throws {
        try await scenario("stale-emacs") { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "emacs -nw -Q books.txt")
            defer { tmux.kill() }
            try await tmux.waitForScreen(containing: "Frank Herbert")
            try await Self.editDune(tmux)
            var link = stat()
            #expect(await eventually(timeout: 10, interval: 0.05) { lstat(h.dir + "/.#books.txt", &link) == 0 })
            let id = try await Vim.clientWrites(h, sub)
            try await tmux.send("C-x", "C-s")
            try await tmux.waitForScreen(containing: "Save anyway? (yes or no)")
            try await tmux.type("yes")
            try await tmux.send("Enter")
            await Self.expectMerged(h, sub, inserted: id, "emacs' save")
            try await tmux.send("C-x", "C-c")
            try await tmux.waitForExit()
        }
    }

    @Test("a read-modify-write script that sleeps between read and write: stands, naming what it reverted")
    func readModifyWriteScriptStands() async throws {
        try await scenario("stale-script") { h, sub in
            // No editor lock: nothing tells what the script read, so its write is deliberate.
            let script = Task {
                try await h.tools.must(
                    "c=$(cat books.txt); : > read.done; while [ ! -e write.now ]; do sleep 0.05; done; "
                        + "printf '%s\\n' \"$c\" | sed 's/Frank Herbert/Frank HERBERT/' > books.txt")
            }
            #expect(await eventually(timeout: 10, interval: 0.05) { TestFiles.exists(h.dir + "/read.done") })
            let added = try await h.ctl(["add", Vim.middlemarch.name, Vim.middlemarch.author])
            let id = added.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
            let inserted = TestBook(id: id, name: Vim.middlemarch.name, author: Vim.middlemarch.author)
            _ = await sub.expectEvents([.insert(inserted, source: "client")], "client add")
            try TestFiles.write("", to: h.dir + "/write.now")
            _ = try await script.value
            _ = await sub.expectEvents([.update(Books.duneUpper), .delete(inserted)], "the script's write, as written")
            #expect(h.fileText == Books.text(replacing: [Books.dune.id: Books.duneUpper]))
            #expect(try await h.status().reverts?.isEmpty == false, "status names the client write it undid")
        }
    }
}
