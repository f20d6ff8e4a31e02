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
            _ = await again.expectEvents([.update(Books.duneUpper)], "vim's save after the restart, merged")
            #expect(
                await eventually(timeout: 8, interval: 0.05) { h.fileText == Self.mergedText(inserted: id) },
                "file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
            try await Vim.quit(tmux)
            again.expectConverged(to: h.fileBooks)
        }
    }

    /// Upper-cases Dune's author in the editor: line 1's last 7 characters retyped.
    static func editDune(_ tmux: TmuxSession) async throws {
        try await tmux.send("End")
        for _ in 0..<7 { try await tmux.send("BSpace") }
        try await tmux.type("HERBERT")
        try await tmux.waitForScreen(containing: "Frank HERBERT")
    }

    @Test("nano --locking: a client writes while nano has the file open, nano saves anyway: merged")
    func nanoStaleSaveIsMerged() async throws {
        try await scenario("stale-nano") { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "nano --locking books.txt")
            defer { tmux.kill() }
            try await tmux.waitForScreen(containing: "Frank Herbert")
            #expect(await eventually(timeout: 10, interval: 0.05) { TestFiles.exists(h.dir + "/.books.txt.swp") })
            let id = try await Vim.clientWrites(h, sub)
            try await Self.editDune(tmux)
            try await tmux.send("C-o")
            try await tmux.waitForScreen(containing: "File Name to Write")
            try await tmux.send("Enter")
            try await tmux.waitForScreen(containing: "continue saving?")
            try await tmux.type("y")
            _ = await sub.expectEvents([.update(Books.duneUpper)], "nano's save, merged")
            #expect(
                await eventually(timeout: 8, interval: 0.05) { h.fileText == Self.mergedText(inserted: id) },
                "file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
            try await tmux.send("C-x")
            try await tmux.waitForExit()
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
            _ = await sub.expectEvents([.update(Books.duneUpper)], "emacs' save, merged")
            #expect(
                await eventually(timeout: 8, interval: 0.05) { h.fileText == Self.mergedText(inserted: id) },
                "file:\n\(h.fileText)\nlog:\n\(h.daemonLog())")
            try await tmux.send("C-x", "C-c")
            try await tmux.waitForExit()
        }
    }
}
