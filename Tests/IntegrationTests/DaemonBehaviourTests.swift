import BooksTestSupport
import Glibc
import Testing

/// Id assignment, bad lines, client writes, start-up without a file, inotify overflow.
@Suite("Daemon behaviour", .timeLimit(.minutes(3))) struct DaemonBehaviourTests {
    @Test("a hand-added name|author row gets an id written back at that line", arguments: [21, 10])
    func handAddedRowGetsID(line: Int) async throws {
        try await scenario("hand-added") { h, sub in
            let row = "Snow Crash|Neal Stephenson"
            if line == 21 {
                try await h.tools.must("echo \(shellQuote(row)) >> books.txt")
            } else {
                try await h.tools.must("sed -i \(shellQuote("\(line)i \(row)")) books.txt")
            }
            let events = await sub.expectEvents([.insertNew(name: "Snow Crash", author: "Neal Stephenson")])
            guard let id = events.first(where: { $0.kind == "insert" })?.id else { return }
            #expect(id.count == 36 && id.filter({ $0 == "-" }).count == 4, "assigned id should be a UUID: \(id)")
            // The daemon writes the id into the file, at the same line; every other line is unchanged.
            var expectedLines = Books.all.map(\.description)
            expectedLines.insert("\(id)|\(row)", at: line - 1)
            var lines: [String] = []
            _ = await eventually(timeout: 5, interval: 0.05) {
                lines = h.fileText.split(separator: "\n").map(String.init)
                return lines == expectedLines
            }
            #expect(lines == expectedLines, "line \(line) should now be \(id)|\(row); file:\n\(h.fileText)")
            // Writing the id back must not produce a second event.
            await sub.expectNoMoreEvents(within: 1.2, "after the id was written back")
        }
    }

    @Test("a row losing its author field is a bad line, not a delete")
    func slipIsBadLineNotDelete() async throws {
        try await scenario("slip", checkConvergence: false) { h, sub in
            try await h.tools.must("sed -i 's/^\\(\(fixtureID(4))|Book 4\\)|Author 4$/\\1/' books.txt")
            #expect(h.fileText.contains("\n\(fixtureID(4))|Book 4\n"))
            await sub.expectNoMoreEvents(within: 1.5, "slip")
            let status = try await h.status()
            #expect(status.badLines.map(\.line) == [4], "status --json badLines: \(status.badLines)")
            #expect(status.badLines.first?.code == "missing-field")
            #expect(status.badLines.first?.text == "\(fixtureID(4))|Book 4")
            // The book is held, not deleted.
            #expect(try await h.listedBooks()[fixtureID(4)] == Books.n(4))
            // Fixing the slip restores the same book: still nothing to report.
            try await h.tools.must("sed -i 's/^\\(\(fixtureID(4))|Book 4\\)$/\\1|Author 4/' books.txt")
            await sub.expectNoMoreEvents(within: 1.2, "slip repaired")
            sub.expectConverged(to: h.fileBooks)
            #expect(try await h.status().badLines.isEmpty)
        }
    }

    @Test("booksctl add: exactly one insert with source client")
    func clientAdd() async throws {
        try await scenario("client-add") { h, sub in
            let result = try await h.ctl(["add", "Snow Crash", "Neal Stephenson"])
            #expect(result.succeeded, "booksctl add: \(result)")
            let id = result.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
            await sub.expectEvents([
                .init(kind: "insert", id: id, name: "Snow Crash", author: "Neal Stephenson", source: "client")
            ])
            #expect(h.fileText.contains("\(id)|Snow Crash|Neal Stephenson\n"), "file:\n\(h.fileText)")
            // update and delete through the client, too
            let upd = try await h.ctl(["update", id, "--name", "Snow Crash (2nd ed.)"])
            #expect(upd.succeeded, "booksctl update: \(upd)")
            await sub.expectEvents(
                [
                    .init(
                        kind: "update", id: id, name: "Snow Crash (2nd ed.)", author: "Neal Stephenson",
                        source: "client")
                ], "update")
            let del = try await h.ctl(["delete", id])
            #expect(del.succeeded, "booksctl delete: \(del)")
            await sub.expectEvents(
                [
                    .init(
                        kind: "delete", id: id, name: "Snow Crash (2nd ed.)", author: "Neal Stephenson",
                        source: "client")
                ], "delete")
            #expect(h.fileText == Books.text())
        }
    }

    /// `sed -i` / `>>`: the hand edit starts 0…44 ms after `booksctl add`, so some rounds hit the
    /// daemon's own write. `stale editor`: an editor that read the file before the client write and
    /// saves (by rename) after it — what vim or a script holding the file for a while does.
    @Test("names with separators, backslashes and Unicode survive a client add and later hand edits")
    func escapedNamesRoundTrip() async throws {
        try await scenario("escaped", checkConvergence: false) { h, sub in
            let name = "Pipes | and \\ backslash"
            let author = "Łukasz Żółć 🦄"
            let result = try await h.ctl(["add", name, author])
            #expect(result.succeeded, "booksctl add: \(result)")
            let id = result.output.split(separator: "\n").last.map { String($0).filter { !$0.isWhitespace } } ?? ""
            await sub.expectEvents([.init(kind: "insert", id: id, name: name, author: author, source: "client")])
            // A hand edit elsewhere re-reads the escaped row: nothing but the edited book may change.
            try await h.tools.must("sed -i 's/|Frank Herbert$/|Frank HERBERT/' books.txt")
            await sub.expectEvents([.update(Books.duneUpper)], "hand edit after the escaped row")
            #expect(try await h.listedBooks()[id] == TestBook(id: id, name: name, author: author))
        }
    }

    @Test("client writes racing with hand edits lose nothing", arguments: ["sed -i", "append"])
    func clientRacesHandEdit(edit: String) async throws {
        try await scenario("race-" + edit.filter { $0.isLetter }) { h, sub in
            let rounds = edit == "stale editor" ? 3 : 12
            var expected: [ExpectedEvent] = []
            for i in 0..<rounds {
                let n = i + 2
                let edited = TestBook(id: fixtureID(n), name: "Book \(n) edited", author: "Author \(n)")
                let appended = TestBook(id: fixtureID(200 + i), name: "Appended \(i)", author: "By Hand")
                let add = "\(shellQuote(BuildProducts.booksctl)) add 'Client \(i)' 'Racer \(i)' > ../add-\(i).out"
                let ms = i * 4
                let script: String
                switch edit {
                case "append":
                    script =
                        """
                        \(add) & sleep 0.\(ms < 10 ? "00" : "0")\(ms); echo \(shellQuote(appended.description)) \
                        >> books.txt; wait
                        """
                case "sed -i":
                    script =
                        """
                        \(add) & sleep 0.\(ms < 10 ? "00" : "0")\(ms); sed -i 's/|Book \(n)|/|Book \(n) edited|/' \
                        books.txt; wait
                        """
                default:
                    script = """
                        old=$(cat books.txt)
                        \(add)
                        sleep 0.2
                        printf '%s\\n' "$old" | sed 's/|Book \(n)|/|Book \(n) edited|/' > .books.txt.new
                        mv .books.txt.new books.txt
                        """
                }
                try await h.tools.must(script)
                expected.append(edit == "append" ? .insert(appended) : .update(edited))
                expected.append(.insertNew(name: "Client \(i)", author: "Racer \(i)", source: "client"))
            }
            await sub.expectEvents(expected, timeout: 15, quiet: 1.5)
            let books = h.fileBooks
            for i in 0..<rounds {
                let n = i + 2
                if edit == "append" {
                    #expect(
                        books[fixtureID(200 + i)]?.name == "Appended \(i)",
                        "appended row \(i) lost; file:\n\(h.fileText)")
                } else {
                    #expect(
                        books[fixtureID(n)]?.name == "Book \(n) edited", "hand edit \(i) lost; file:\n\(h.fileText)")
                }
                #expect(
                    books.values.contains { $0.name == "Client \(i)" && $0.author == "Racer \(i)" },
                    "client add \(i) lost; file:\n\(h.fileText)")
                let id = (TestFiles.readText(h.root + "/add-\(i).out") ?? "").filter { !$0.isWhitespace }
                #expect(books[id]?.name == "Client \(i)", "booksctl add printed id \(id) not in the file")
            }
            #expect(books.count == 20 + rounds * (edit == "append" ? 2 : 1))
        }
    }

    /// A program that read the file before a client write and saves its stale copy after it
    /// overwrites that write: the daemon never overwrites a hand edit, so the save stands and is
    /// reported exactly (the update it made, and the client's book it dropped), with a warning in
    /// the log. (docs/RELIABILITY.md: without evidence of its base — the output file was made
    /// after the write — a stale save is a hand edit like any other.)
    @Test("a save based on stale content stands and is reported exactly")
    func staleSaveStands() async throws {
        try await scenario("stale-save") { h, sub in
            let edited = TestBook(id: fixtureID(2), name: "Book 2 edited", author: "Author 2")
            try await h.tools.must(Self.staleCopyScript(outputMadeFirst: false))
            await sub.expectEvents(
                [
                    .insertNew(name: "Client 0", author: "Racer 0", source: "client"),
                    .update(edited),
                    .init(kind: "delete", id: nil, name: "Client 0", author: "Racer 0", source: "file"),
                ],
                timeout: 15, quiet: 1.5)
            #expect(h.fileBooks[fixtureID(2)]?.name == "Book 2 edited")
            #expect(!h.fileBooks.values.contains { $0.name == "Client 0" })
        }
    }

    /// `sed -i` racing a client write: the program made its output file (and read the file)
    /// before the write landed and renamed it over the file after. The output file's birth
    /// time shows it came from the older version: the save is merged and the write survives.
    @Test("a rename-over made before a client write is merged: the write survives")
    func renameOverMadeBeforeAWriteIsMerged() async throws {
        try await scenario("stale-rename") { h, sub in
            let edited = TestBook(id: fixtureID(2), name: "Book 2 edited", author: "Author 2")
            try await h.tools.must(Self.staleCopyScript(outputMadeFirst: true))
            await sub.expectEvents(
                [.insertNew(name: "Client 0", author: "Racer 0", source: "client"), .update(edited)],
                timeout: 15, quiet: 1.5)
            let id = (TestFiles.readText(h.root + "/add-0.out") ?? "").filter { !$0.isWhitespace }
            let merged = await eventually(timeout: 10) {
                h.fileBooks[id]?.name == "Client 0" && h.fileBooks[fixtureID(2)]?.name == "Book 2 edited"
            }
            #expect(merged, "the merged file keeps the client's book and the edit; file:\n\(h.fileText)")
        }
    }

    /// A script that reads the file, lets `booksctl add` write a book, then renames its copy
    /// (Book 2 edited) over the file; its output file is made before the add when
    /// `outputMadeFirst`, after it otherwise.
    static func staleCopyScript(outputMadeFirst: Bool) -> String {
        let add = "\(shellQuote(BuildProducts.booksctl)) add 'Client 0' 'Racer 0' > ../add-0.out"
        let make = "tmp=$(mktemp .books.txt.XXXXXX)"
        return """
            old=$(cat books.txt)
            \(outputMadeFirst ? make + "; sleep 0.2" : ":")
            \(add)
            sleep 0.2
            \(outputMadeFirst ? ":" : make)
            printf '%s\\n' "$old" | sed 's/|Book 2|/|Book 2 edited|/' > "$tmp"
            mv "$tmp" books.txt
            """
    }

    @Test("books.txt missing at start, then created: inserts")
    func fileMissingAtStart() async throws {
        try await scenario("missing", books: nil) { h, sub in
            let rows = Array(Books.all.prefix(3))
            try await h.tools.must("printf '%s\\n' \(printfArguments(Fixture.text(rows))) > books.txt")
            await sub.expectEvents(rows.map { .insert($0) })
        }
    }

    @Test(
        "inotify queue overflow: the subscriber converges to the file",
        .enabled(if: isRoot, "needs root to lower /proc/sys/fs/inotify/max_queued_events"))
    func inotifyOverflow() async throws {
        let knob = "/proc/sys/fs/inotify/max_queued_events"
        guard let original = TestFiles.readText(knob)?.filter({ $0.isNumber }), !original.isEmpty else {
            print("skipping inotifyOverflow: \(knob) is not readable")
            return
        }
        let h = try await DaemonHarness("overflow", start: false)
        defer { h.shutdown() }
        do {
            // The limit is taken when the daemon creates its inotify instance: lower it only around start-up.
            defer { try? TestFiles.write(original + "\n", to: knob) }
            do { try TestFiles.write("16\n", to: knob) } catch {
                print("skipping inotifyOverflow: cannot write \(knob): \(error)")
                return
            }
            try h.spawnDaemon()
            // Restore the limit as soon as the daemon's inotify instance exists (other tests start daemons too).
            _ = await eventually(timeout: 10) { h.daemonHasInotifyInstance() }
        }
        try await h.waitReady(timeout: 15)
        #expect(TestFiles.readText(knob)?.filter({ $0.isNumber }) == original)
        let sub = try await h.subscribe()
        let script = """
            for i in $(seq 1 30); do
              for j in $(seq 1 40); do : > noise-$i-$j; done
              n=$(( i % 19 + 2 ))
              sed -i "s/^\\([^|]*\\)|Book $n[^|]*|/\\1|Book $n rev $i|/" books.txt
              rm -f noise-$i-*
            done
            """
        try await h.tools.must(script, timeout: 120)
        let events = await sub.drain(quiet: 2.5, limit: 60)
        #expect(
            !events.contains { $0.kind == "delete" },
            "no book was deleted, yet: \(events.filter { $0.kind == "delete" })")
        #expect(!events.isEmpty)
        sub.expectConverged(to: h.fileBooks)
        #expect(h.fileBooks.count == 20)
    }
}
