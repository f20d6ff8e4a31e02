import BooksTestSupport
import Glibc
import Testing

/// Editors, in place and by rename (see docs/EVENTS.md).
@Suite("Editors", .timeLimit(.minutes(3))) struct EditorTests {
    static let vimSubstitute = "-c '%s/Frank Herbert/Frank HERBERT/'"

    @Test("vim -Es, no vimrc (backupcopy=yes): in place")
    func vimExInPlace() async throws {
        try await scenario("vim-es") { h, sub in
            try await h.tools.must("vim -Es \(Self.vimSubstitute) -c wq books.txt")
            await sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("vim -Es, backupcopy=no: rename", arguments: ["/var/tmp", "/tmp"])
    func vimExRename(base: String) async throws {
        // Under /tmp, backupskip makes the same command write in place.
        try await scenario("vim-es-bkc-no", base: base) { h, sub in
            try await h.tools.must("vim -Es -c 'set backupcopy=no' \(Self.vimSubstitute) -c wq books.txt")
            await sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test(
        "vim -Es with each write strategy of EVENTS.md",
        arguments: ["backupcopy=yes", "backupcopy=no", "backupcopy=auto", "nowritebackup", "backup backupcopy=yes"])
    func vimExWriteStrategies(options: String) async throws {
        try await scenario("vim-es-opts") { h, sub in
            try await h.tools.must("vim -Es -c 'set \(options)' \(Self.vimSubstitute) -c wq books.txt")
            await sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("vim -Es, set backup (keeps books.txt~), then later edits are still seen")
    func vimExBackupKept() async throws {
        try await scenario("vim-es-backup") { h, sub in
            try await h.tools.must("vim -Es -c 'set backup backupcopy=auto' \(Self.vimSubstitute) -c wq books.txt")
            await sub.expectEvents([.update(Books.duneUpper)], "vim save")
            #expect(TestFiles.exists(h.dir + "/books.txt~"), "vim should have kept books.txt~")
            // Edits to the backup are not edits of books.txt.
            try await h.tools.must("sed -i 's/Author 2$/Backup Only/' books.txt~")
            await sub.expectNoMoreEvents(within: 1.2, "edit of books.txt~")
            // The new books.txt is watched (not the renamed old inode).
            try await h.tools.must("echo '\(fixtureID(77))|After Backup|Someone' >> books.txt")
            await sub.expectEvents(
                [.insert(TestBook(id: fixtureID(77), name: "After Backup", author: "Someone"))], "append after vim")
        }
    }

    @Test("interactive vim in tmux (defaults.vim ⇒ backupcopy=auto ⇒ rename)")
    func vimInteractive() async throws {
        try await scenario("vim-tmux") { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "vim books.txt")
            defer { tmux.kill() }
            try await tmux.waitForScreen(containing: "Frank Herbert")
            try await tmux.type(":%s/Frank Herbert/Frank HERBERT/")
            try await tmux.send("Enter")
            try await tmux.type(":wq")
            try await tmux.send("Enter")
            try await tmux.waitForExit()
            await sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("nano in tmux (in place, lock file)")
    func nanoInteractive() async throws {
        try await scenario("nano-tmux") { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "nano books.txt")
            defer { tmux.kill() }
            try await tmux.waitForScreen(containing: "Frank Herbert")
            try await tmux.send("End")
            try await tmux.type(" Jr.")
            try await tmux.send("C-o")
            try await tmux.waitForScreen(containing: "File Name to Write")
            try await tmux.send("Enter")
            try await tmux.waitForScreen(containing: "Wrote")
            try await tmux.send("C-x")
            try await tmux.waitForExit()
            await sub.expectEvents([.update(TestBook(id: Books.dune.id, name: "Dune", author: "Frank Herbert Jr."))])
        }
    }

    @Test("emacs -nw in tmux (rename, keeps books.txt~, second CLOSE_WRITE)")
    func emacsInteractive() async throws {
        try await scenario("emacs-tmux") { h, sub in
            let tmux = try await TmuxSession(tools: h.tools, command: "emacs -nw -Q books.txt")
            defer { tmux.kill() }
            try await tmux.waitForScreen(containing: "Frank Herbert", timeout: 20)
            try await tmux.send("M-x")
            try await tmux.type("replace-string")
            try await tmux.send("Enter")
            try await tmux.type("Frank Herbert")
            try await tmux.send("Enter")
            try await tmux.type("Frank HERBERT")
            try await tmux.send("Enter")
            try await tmux.waitForScreen(containing: "Frank HERBERT")
            try await tmux.send("C-x", "C-s")
            try await tmux.waitForScreen(containing: "Wrote")
            try await tmux.send("C-x", "C-c")
            try await tmux.waitForExit(timeout: 20)
            await sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    static let emacsReplace =
        #"(progn (find-file "books.txt") (goto-char (point-min)) "#
        + #"(while (search-forward "Frank Herbert" nil t) (replace-match "Frank HERBERT" t t)) (save-buffer))"#

    @Test("emacs --batch with backup files (rename, keeps books.txt~)", arguments: ["/var/tmp", "/tmp"])
    func emacsBatchBackup(base: String) async throws {
        try await scenario("emacs-backup", base: base) { h, sub in
            try await h.tools.must("emacs --batch -Q --eval \(shellQuote(Self.emacsReplace))", timeout: 60)
            await sub.expectEvents([.update(Books.duneUpper)])
            if base == "/var/tmp" {
                #expect(TestFiles.exists(h.dir + "/books.txt~"), "emacs should have kept books.txt~")
            }
            // Still watching the live books.txt.
            try await h.tools.must("sed -i 's/Author 3$/Author Three/' books.txt")
            await sub.expectEvents(
                [.update(TestBook(id: fixtureID(3), name: "Book 3", author: "Author Three"))], "sed after emacs")
        }
    }

    @Test("emacs --batch without backup files (in place, two CLOSE_WRITEs)")
    func emacsBatchNoBackup() async throws {
        try await scenario("emacs-nobackup") { h, sub in
            let lisp = "(progn (setq make-backup-files nil) " + Self.emacsReplace.dropFirst("(progn ".count)
            try await h.tools.must("emacs --batch -Q --eval \(shellQuote(lisp))", timeout: 60)
            await sub.expectEvents([.update(Books.duneUpper)])
            #expect(!TestFiles.exists(h.dir + "/books.txt~"))
        }
    }

    @Test("no-op save (vim :wq without changes) yields no events")
    func noOpSave() async throws {
        try await scenario("noop-save") { h, sub in
            try await h.tools.must("vim -Es -c wq books.txt")
            await sub.expectNoMoreEvents(within: 1.2)
            #expect(h.fileText == Books.text())
        }
    }
}
