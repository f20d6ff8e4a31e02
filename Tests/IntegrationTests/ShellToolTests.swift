import BooksTestSupport
import Glibc
import Testing

/// Non-interactive tools and shell idioms (see docs/EVENTS.md).
@Suite("Shell tools", .timeLimit(.minutes(3))) struct ShellToolTests {
    static let renamed2 = TestBook(id: fixtureID(2), name: "Book Two", author: "Author 2")
    static let newRow = TestBook(id: fixtureID(100), name: "Neuromancer", author: "William Gibson")
    /// A content change mixing update, delete and insert.
    static let mixedText = Books.text(replacing: [fixtureID(2): renamed2, fixtureID(3): nil], appending: [newRow])
    static let mixedEvents: [ExpectedEvent] = [.update(renamed2), .delete(Books.n(3)), .insert(newRow)]

    @Test("sed -i (temp file + rename)")
    func sedInPlace() async throws {
        try await scenario("sed") { h, sub in
            try await h.tools.must("sed -i 's/|Frank Herbert$/|Frank HERBERT/' books.txt")
            await sub.expectEvents([.update(Books.duneUpper)])
        }
    }

    @Test("perl -pi (temp file + rename)")
    func perlInPlace() async throws {
        try await scenario("perl") { h, sub in
            try await h.tools.must("perl -pi -e 's/\\|Author 7$/|Author Seven/' books.txt")
            await sub.expectEvents([.update(TestBook(id: fixtureID(7), name: "Book 7", author: "Author Seven"))])
        }
    }

    @Test("ed script (in place)")
    func edScript() async throws {
        try await scenario("ed") { h, sub in
            try await h.tools.must("printf ',s/|Book 3|/|Book Three|/\\nw\\nq\\n' | ed -s books.txt")
            await sub.expectEvents([.update(TestBook(id: fixtureID(3), name: "Book Three", author: "Author 3"))])
        }
    }

    @Test("cp other books.txt (in place, O_TRUNC)")
    func cpOver() async throws {
        try await scenario("cp") { h, sub in
            try TestFiles.write(Self.mixedText, to: h.root + "/other.txt")
            try await h.tools.must("cp ../other.txt books.txt")
            await sub.expectEvents(Self.mixedEvents)
        }
    }

    @Test("mv other books.txt (atomic rename)")
    func mvOver() async throws {
        try await scenario("mv") { h, sub in
            try TestFiles.write(Self.mixedText, to: h.dir + "/other.tmp")
            try await h.tools.must("mv other.tmp books.txt")
            await sub.expectEvents(Self.mixedEvents)
        }
    }

    @Test("printf … > books.txt (in place, O_TRUNC)")
    func printfTruncate() async throws {
        try await scenario("printf") { h, sub in
            try await h.tools.must("printf '%s\\n' \(printfArguments(Self.mixedText)) > books.txt")
            await sub.expectEvents(Self.mixedEvents)
        }
    }

    @Test("echo row >> books.txt (append)")
    func appendRow() async throws {
        try await scenario("append") { h, sub in
            try await h.tools.must("echo \(shellQuote(Self.newRow.description)) >> books.txt")
            await sub.expectEvents([.insert(Self.newRow)])
        }
    }

    @Test("truncate -s 0, 0.3 s pause, append: only the net change")
    func truncateThenAppend() async throws {
        try await scenario("truncate") { h, sub in
            let changed = TestBook(id: fixtureID(5), name: "Book Five", author: "Author 5")
            let text = Books.text(replacing: [changed.id: changed])
            try await h.tools.must(
                "truncate -s 0 books.txt; sleep 0.3; printf '%s\\n' \(printfArguments(text)) >> books.txt")
            await sub.expectEvents([.update(changed)], timeout: 8, quiet: 1.5)
        }
    }

    @Test("rm, recreate after 0.3 s: only the net change")
    func removeAndRecreate() async throws {
        try await scenario("rm-recreate") { h, sub in
            let changed = TestBook(id: fixtureID(6), name: "Book 6", author: "Author Six")
            let text = Books.text(replacing: [changed.id: changed])
            try await h.tools.must("rm books.txt; sleep 0.3; printf '%s\\n' \(printfArguments(text)) > books.txt")
            await sub.expectEvents([.update(changed)], timeout: 8, quiet: 1.5)
        }
    }

    @Test("rsync, default (temp file + rename) and --inplace; source mtime differs", arguments: [false, true])
    func rsyncCopy(inplace: Bool) async throws {
        try await scenario(inplace ? "rsync-inplace" : "rsync") { h, sub in
            let changed = TestBook(id: fixtureID(8), name: "Book 8", author: "Author 88")
            mkdir(h.root + "/src", 0o755)
            try TestFiles.write(Books.text(replacing: [changed.id: changed]), to: h.root + "/src/books.txt")
            try await h.tools.must(
                """
                touch -d '2001-01-01 00:00:00' ../src/books.txt && rsync \
                \(inplace ? "--inplace " : "")../src/books.txt books.txt
                """
            )
            await sub.expectEvents([.update(changed)])
            #expect(h.fileText == Books.text(replacing: [changed.id: changed]))
        }
    }

    @Test("Python writer: half, 0.5 s pause, rest: only the net change")
    func pythonTwoChunks() async throws {
        try await scenario("python") { h, sub in
            let first = TestBook(id: fixtureID(2), name: "Book 2", author: "Early Change")
            let last = TestBook(id: fixtureID(19), name: "Book 19 (late)", author: "Author 19")
            try TestFiles.write(Books.text(replacing: [first.id: first, last.id: last]), to: h.root + "/new.txt")
            let script = """
                import time
                data = open('../new.txt', 'rb').read()
                half = len(data) // 2
                with open('books.txt', 'wb') as f:
                    f.write(data[:half]); f.flush()
                    time.sleep(0.5)
                    f.write(data[half:])
                """
            try TestFiles.write(script, to: h.root + "/writer.py")
            try await h.tools.must("python3 ../writer.py")
            await sub.expectEvents([.update(first), .update(last)])
        }
    }

    @Test("truncate to empty and leave it: every book deleted once the confirmation period passes")
    func genuineDeleteAll() async throws {
        try await scenario("delete-all", confirmationMs: 400) { h, sub in
            try await h.tools.must(": > books.txt")
            await sub.expectEvents(Books.all.map { .delete($0) }, timeout: 8, quiet: 1.2)
            #expect(h.fileText.isEmpty)
        }
    }

    @Test("Python tempfile in the directory + os.replace (atomic)")
    func pythonReplace() async throws {
        try await scenario("py-replace") { h, sub in
            try TestFiles.write(Self.mixedText, to: h.root + "/new.txt")
            let script = """
                import os, tempfile
                data = open('../new.txt', 'rb').read()
                fd, tmp = tempfile.mkstemp(dir='.', prefix='.books.', suffix='.tmp')
                os.write(fd, data); os.fsync(fd); os.close(fd)
                os.replace(tmp, 'books.txt')
                """
            try TestFiles.write(script, to: h.root + "/replace.py")
            try await h.tools.must("python3 ../replace.py")
            await sub.expectEvents(Self.mixedEvents)
        }
    }

    @Test("touch yields no events")
    func touchOnly() async throws {
        try await scenario("touch") { h, sub in
            try await h.tools.must("touch books.txt")
            await sub.expectNoMoreEvents(within: 1.2)
        }
    }

    @Test("chmod yields no events")
    func chmodOnly() async throws {
        try await scenario("chmod") { h, sub in
            try await h.tools.must("chmod 600 books.txt")
            await sub.expectNoMoreEvents(within: 1.2)
        }
    }

    @Test("mv away and back after 0.3 s: no events, still watching")
    func moveAwayAndBack() async throws {
        try await scenario("mv-away-back") { h, sub in
            try await h.tools.must("mv books.txt books.bak; sleep 0.3; mv books.bak books.txt")
            await sub.expectNoMoreEvents(within: 1.5)
            try await h.tools.must("sed -i 's/|Frank Herbert$/|Frank HERBERT/' books.txt")
            await sub.expectEvents([.update(Books.duneUpper)], "edit after moving back")
        }
    }
}
