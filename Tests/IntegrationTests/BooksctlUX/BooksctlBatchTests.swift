import BooksTestSupport
import Glibc
import Testing

/// `add -`, several and shortened ids, JSON output of writes, `check`, `status --json`, "did you
/// mean" and terminal tables, against a real booksd (tables in a real terminal: tmux).
@Suite("booksctl batches, ids and output", .timeLimit(.minutes(3))) struct BooksctlBatchTests {
    static let ctl = shellQuote(BuildProducts.booksctl)

    @Test("add - is one atomic write; get and delete take several ids and unique prefixes")
    func batchesAndShortIDs() async throws {
        let h = try await DaemonHarness("batch", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        let added = try await h.tools.must(
            #"""
            printf 'Dune Messiah\tFrank Herbert\n\n{"id":"ab1","name":"","author":"Nobody"}\n{"id":"ab2","name":"Two","author":""}\n' \
              | \#(c) add - --json
            """#)
        let lines = added.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(added)")
        #expect(lines.allSatisfy { $0.hasSuffix(#""version":1}"#) }, "one change set for all: \(added)")
        #expect(lines[1] == #"{"id":"ab1","name":"","author":"Nobody","version":1}"#)
        #expect(h.fileText.contains("\nab1||Nobody\n"), "an empty name is a value: \(h.fileText)")
        // A bad line writes nothing.
        let bad = try await h.tools.shell("printf 'Ok\\tA\\nno tab\\n' | \(c) add -")
        #expect(bad.status == 2)
        #expect(bad.output.contains("line 2: expected NAME<TAB>AUTHOR"), "\(bad)")
        #expect(try await h.status().bookCount == 6)
        // More than max_request_bytes (1 MiB) in one insert: refused whole, with a hint.
        let huge = try await h.tools.shell("seq 1 40000 | sed 's/.*/Title &\\tAuthor &/' | \(c) add -")
        #expect(huge.status == 1, "\(huge)")
        #expect(huge.output.contains("max_request_bytes"), "\(huge)")
        #expect(try await h.status().bookCount == 6)
        // Prefixes: unique → the book; ambiguous → candidates, exit 2; unknown → exit 5.
        let messiah = try #require(jsonField(lines[0], "id"))
        let got = try await h.tools.must("\(c) get ab1 \(messiah.prefix(8)) \(fixtureID(2)) --json")
        let gotLines = got.output.split(separator: "\n").map(String.init)
        #expect(gotLines.count == 3, "\(got)")
        #expect(gotLines[1].hasPrefix(#"{"id":"\#(messiah)","name":"Dune Messiah""#), "\(got)")
        #expect(gotLines[2].hasPrefix(#"{"id":"\#(fixtureID(2))""#), "\(got)")
        let ambiguous = try await h.tools.shell("\(c) get ab")
        #expect(ambiguous.status == 2, "\(ambiguous)")
        #expect(ambiguous.output.contains("id prefix 'ab' is ambiguous: 2 books match\n  ab1\n  ab2"), "\(ambiguous)")
        #expect(try await h.tools.shell("\(c) get zz").status == 5)
        let updated = try await h.tools.must("\(c) update ab2 --author 'Some One' -j")
        #expect(updated.output == #"{"id":"ab2","name":"Two","author":"Some One","version":2}"# + "\n")
        let deleted = try await h.tools.must("\(c) delete ab1 ab2 --json")
        #expect(deleted.output.split(separator: "\n").count == 2, "\(deleted)")
        #expect(try await h.status().bookCount == 4)
    }

    @Test("check FILE, status --json and status print bad lines the documented ways")
    func badLinesEverywhere() async throws {
        let h = try await DaemonHarness("badlines", books: Fixture.books(count: 2))
        defer { h.shutdown() }
        let c = Self.ctl
        try TestFiles.write("# list\n1|Dune|Herbert\nno bar here\n2|a/b|c|d\n", to: h.root + "/candidate.txt")
        let checked = try await h.tools.shell("\(c) check ../candidate.txt")
        #expect(checked.status == 1)
        #expect(
            checked.output
                == """
                ../candidate.txt:3: wrong number of fields: expected 3 (id|name|author), found 1: no bar here
                ../candidate.txt:4: wrong number of fields: expected 3 (id|name|author), found 4: 2|a/b|c|d

                """)
        #expect(try await h.tools.shell("\(c) check books.txt").status == 0)
        #expect(try await h.tools.shell("\(c) check ../missing.txt").status == 2)
        try await h.tools.must("echo 'x|y/z' >> books.txt; echo 'a|b|c|d' >> books.txt")
        #expect(await eventually(timeout: 10) { (try? await h.status().badLines.count) == 1 })
        let json = try await h.tools.must("\(c) status --json")
        #expect(!json.output.contains(#"\/"#), "no escaped slashes: \(json)")
        let status = try await h.status()
        #expect(status.badLines.first?.line == 4)
        #expect(status.badLines.first?.code == "wrong-field-count")
        #expect(status.badLines.first?.message == "wrong number of fields: expected 3 (id|name|author), found 4")
        #expect(status.badLines.first?.text == "a|b|c|d")
        let text = try await h.tools.must("\(c) status")
        #expect(text.output.contains("\(h.file):4: wrong number of fields"), "\(text)")
    }

    @Test("did you mean; -- ends options")
    func usageHelp() async throws {
        let h = try await DaemonHarness("didyoumean", books: Fixture.books(count: 2))
        defer { h.shutdown() }
        let c = Self.ctl
        let typo = try await h.tools.shell("\(c) lsit")
        #expect(typo.status == 2)
        #expect(typo.output.contains("unknown command 'lsit' (did you mean 'list'?)"), "\(typo)")
        let option = try await h.tools.shell("\(c) list --auhtor x")
        #expect(option.status == 2)
        #expect(option.output.contains("(did you mean '--author'?)"), "\(option)")
        let dashed = try await h.tools.must("\(c) add -- '--json' '-x'")
        let id = dashed.output.split(separator: "\n").first.map(String.init) ?? ""
        #expect(try await h.tools.must("\(c) get \(id) --json").output.contains(#""name":"--json","author":"-x""#))
    }

    @Test("list in a 40-column terminal: aligned by display width, cut with …; -l shows everything")
    func tableFitsTheTerminal() async throws {
        let h = try await DaemonHarness("table", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        try await h.tools.must("\(c) add '漢字の本です、とても長い題名' '著者 🎉' > /dev/null")
        let server = "booksctl-ux-\(getpid())"
        defer { _ = try? ChildProcess.runBlocking(["tmux", "-L", server, "kill-server"], timeout: 10) }
        let script = "cd \(shellQuote(h.dir)); unset COLUMNS; \(c) list; echo ===; \(c) list -l; sleep 60"
        try await h.tools.must(
            "tmux -L \(server) -f /dev/null new-session -d -x 40 -y 30 -e BOOKS_SOCKET=\(shellQuote(h.socket)) "
                + shellQuote(script))
        var screen = ""
        let done = await eventually(timeout: 20) {
            screen = (try? await h.tools.run(["tmux", "-L", server, "capture-pane", "-p", "-J"]))?.output ?? ""
            return screen.ranges(of: "4 of 4 books").count == 2
        }
        #expect(done, "\(screen)")
        let parts = screen.split(separator: "===\n").map { $0.split(separator: "\n").map(String.init) }
        let cut = parts.first ?? []
        let full = parts.dropFirst().first ?? []
        #expect(cut.count == 6, "\(screen)")
        #expect(cut.allSatisfy { DisplayColumns.of($0) <= 40 }, "\(cut)")
        #expect(cut.contains { $0.contains("…") })
        // Every row's last column (after the last run of two or more spaces) starts at the same display column.
        let authorStarts = cut.prefix(5).map { row -> Int in
            guard var start = row.ranges(of: "  ").last?.upperBound else { return -1 }
            while start < row.endIndex, row[start] == " " { start = row.index(after: start) }
            return DisplayColumns.of(String(row[..<start]))
        }
        #expect(Set(authorStarts).count == 1, "\(cut)")
        #expect(full.contains { $0.contains("漢字の本です、とても長い題名") && $0.contains("著者 🎉") }, "\(full)")
        #expect(full.contains { $0.contains(fixtureID(1)) })
    }
}

/// Terminal columns of text as tmux draws it (wide CJK and emoji: two), for checking captures.
enum DisplayColumns {
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { sum, scalar in
            switch scalar.value {
            case 0x300...0x36F, 0x200B...0x200F, 0xFE0F: return sum
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60, 0x1F300...0x1FAFF:
                return sum + 2
            default: return sum + 1
            }
        }
    }
}
