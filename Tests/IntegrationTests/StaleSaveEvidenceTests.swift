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
}
