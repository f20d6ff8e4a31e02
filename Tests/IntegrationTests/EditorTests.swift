import Glibc
import Testing

/// Editors, in place and by rename (see shared/EVENTS.md).
@Suite("Editors") struct EditorTests {
    static let vimSubstitute = "-c '%s/Frank Herbert/Frank HERBERT/'"

    @Test("vim -Es, no vimrc (backupcopy=yes): in place")
    func vimExInPlace() throws {
        try scenario("vim-es") { h, sub in
            try h.tools.must("vim -Es \(Self.vimSubstitute) -c wq books.txt")
            sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("vim -Es, backupcopy=no: rename", arguments: ["/var/tmp", "/tmp"])
    func vimExRename(base: String) throws {
        // Under /tmp, backupskip makes the same command write in place.
        try scenario("vim-es-bkc-no", base: base) { h, sub in
            try h.tools.must("vim -Es -c 'set backupcopy=no' \(Self.vimSubstitute) -c wq books.txt")
            sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("vim -Es, set backup (keeps books.txt~), then later edits are still seen")
    func vimExBackupKept() throws {
        try scenario("vim-es-backup") { h, sub in
            try h.tools.must("vim -Es -c 'set backup backupcopy=auto' \(Self.vimSubstitute) -c wq books.txt")
            sub.expectEvents([.update(Books.duneUpper)], "vim save")
            #expect(fileExists(h.dir + "/books.txt~"), "vim should have kept books.txt~")
            // Edits to the backup are not edits of books.txt.
            try h.tools.must("sed -i 's/Author 2$/Backup Only/' books.txt~")
            sub.expectNoMoreEvents(within: 1.2, "edit of books.txt~")
            // The new books.txt is watched (not the renamed old inode).
            try h.tools.must("echo '\(fixtureID(77))|After Backup|Someone' >> books.txt")
            sub.expectEvents([.insert(Book(id: fixtureID(77), name: "After Backup", author: "Someone"))], "append after vim")
        }
    }

    @Test("interactive vim in tmux (defaults.vim ⇒ backupcopy=auto ⇒ rename)")
    func vimInteractive() throws {
        try scenario("vim-tmux") { h, sub in
            let tmux = try TmuxSession(tools: h.tools, command: "vim books.txt")
            defer { tmux.kill() }
            try tmux.waitForScreen(containing: "Frank Herbert")
            try tmux.type(":%s/Frank Herbert/Frank HERBERT/")
            try tmux.send("Enter")
            try tmux.type(":wq")
            try tmux.send("Enter")
            try tmux.waitForExit()
            sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("nano in tmux (in place, lock file)")
    func nanoInteractive() throws {
        try scenario("nano-tmux") { h, sub in
            let tmux = try TmuxSession(tools: h.tools, command: "nano books.txt")
            defer { tmux.kill() }
            try tmux.waitForScreen(containing: "Frank Herbert")
            try tmux.send("End")
            try tmux.type(" Jr.")
            try tmux.send("C-o")
            try tmux.waitForScreen(containing: "File Name to Write")
            try tmux.send("Enter")
            try tmux.waitForScreen(containing: "Wrote")
            try tmux.send("C-x")
            try tmux.waitForExit()
            sub.expectEvents([.update(Book(id: Books.dune.id, name: "Dune", author: "Frank Herbert Jr."))])
        }
    }

    static let emacsReplace = #"(progn (find-file "books.txt") (goto-char (point-min)) (while (search-forward "Frank Herbert" nil t) (replace-match "Frank HERBERT" t t)) (save-buffer))"#

    @Test("emacs --batch with backup files (rename, keeps books.txt~)", arguments: ["/var/tmp", "/tmp"])
    func emacsBatchBackup(base: String) throws {
        try scenario("emacs-backup", base: base) { h, sub in
            try h.tools.must("emacs --batch -Q --eval \(shellQuote(Self.emacsReplace))", timeout: 60)
            sub.expectEvents([.update(Books.duneUpper)])
            if base == "/var/tmp" { #expect(fileExists(h.dir + "/books.txt~"), "emacs should have kept books.txt~") }
            // Still watching the live books.txt.
            try h.tools.must("sed -i 's/Author 3$/Author Three/' books.txt")
            sub.expectEvents([.update(Book(id: fixtureID(3), name: "Book 3", author: "Author Three"))], "sed after emacs")
        }
    }

    @Test("emacs --batch without backup files (in place, two CLOSE_WRITEs)")
    func emacsBatchNoBackup() throws {
        try scenario("emacs-nobackup") { h, sub in
            let lisp = "(progn (setq make-backup-files nil) " + Self.emacsReplace.dropFirst("(progn ".count)
            try h.tools.must("emacs --batch -Q --eval \(shellQuote(lisp))", timeout: 60)
            sub.expectEvents([.update(Books.duneUpper)])
            #expect(!fileExists(h.dir + "/books.txt~"))
        }
    }

    @Test("no-op save (vim :wq without changes) yields no events")
    func noOpSave() throws {
        try scenario("noop-save") { h, sub in
            try h.tools.must("vim -Es -c wq books.txt")
            sub.expectNoMoreEvents(within: 1.2)
            #expect(h.fileText == Books.text())
        }
    }
}
