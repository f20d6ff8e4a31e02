import BooksTestSupport
import Glibc
import Testing

/// What a new user meets first: no arguments, no daemon, a wrong store name, an id typed in the
/// other case; against a real booksd.
@Suite("booksctl first use", .timeLimit(.minutes(3))) struct BooksctlFirstUseTests {
    static let ctl = shellQuote(BuildProducts.booksctl)

    @Test("no arguments: the usage on stderr, exit 2; no daemon: the hint on a line of its own")
    func usageAndConnectError() async throws {
        let h = try await DaemonHarness("firstuse", books: Fixture.books(count: 2), start: false)
        defer { h.shutdown() }
        let c = Self.ctl
        let bare = try await h.tools.shell("\(c) 2>/dev/null; echo \"exit $?\"; \(c) 2>&1 >/dev/null")
        let lines = bare.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "exit 2", "nothing on stdout, exit 2: \(bare)")
        #expect(bare.output.contains("USAGE\n  booksctl [--socket PATH]"), "\(bare)")
        #expect(bare.output.contains("COMMANDS") && !bare.output.contains("missing command"), "\(bare)")
        let down = try await h.tools.shell("\(c) --socket \(shellQuote(h.socket)) list")
        #expect(down.status == 3, "\(down)")
        let downLines = down.output.split(separator: "\n").map(String.init)
        #expect(downLines.count == 2, "\(down)")
        #expect(downLines.first == "booksctl: cannot connect to booksd at \(h.socket): No such file or directory")
        #expect(downLines.last?.hasPrefix("hint: is booksd running?") == true, "\(down)")
        #expect(!down.output.contains(#"\n"#), "no escaped newline: \(down)")
    }

    @Test("an unknown --store lists the stores once")
    func unknownStoreListedOnce() async throws {
        let h = try await DaemonHarness("firstuse-stores", books: Fixture.books(count: 2), start: false)
        defer { h.shutdown() }
        try TestFiles.write("7|Emma|Jane Austen\n", to: h.dir + "/fiction.txt")
        h.extraDaemonArguments = ["--store", "fiction=\(h.dir)/fiction.txt"]
        try await h.startDaemon()
        let wrong = try await h.tools.shell("\(Self.ctl) -s nope list")
        #expect(wrong.status == 2, "\(wrong)")
        #expect(wrong.output == "booksctl: no store named \"nope\"; stores: default, fiction\n", "\(wrong)")
        let none = try await h.tools.shell("\(Self.ctl) list")
        #expect(none.status == 2, "\(none)")
        #expect(none.output.ranges(of: "fiction").count == 1, "\(none)")
    }

    @Test("subscribe: --since with a made-up epoch and --coalesce without --exec are usage errors with a hint")
    func subscribeOptionsThatDoNothing() async throws {
        let h = try await DaemonHarness("firstuse-subscribe", books: Fixture.books(count: 2))
        defer { h.shutdown() }
        let bogus = try await h.tools.shell("\(Self.ctl) subscribe --since bogus:3 --once")
        #expect(bogus.status == 2, "\(bogus)")
        let lines = bogus.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines.last?.hasPrefix("hint: EPOCH is the daemon's, a UUID") == true, "\(bogus)")
        let coalesce = try await h.tools.shell("\(Self.ctl) subscribe --coalesce 500 --once")
        #expect(coalesce.status == 2, "\(coalesce)")
        #expect(coalesce.output.hasPrefix("booksctl: --coalesce needs --exec CMD"), "\(coalesce)")
        #expect(coalesce.output.contains("see booksctl subscribe --help"), "\(coalesce)")
    }

    @Test("id prefixes match in either case when that is unambiguous; the exact case wins")
    func caseInsensitivePrefixes() async throws {
        let books = [
            TestBook(id: "35BF0A11-UPPER", name: "Upper", author: "A"),
            TestBook(id: "77ab-lower", name: "Lower", author: "B"),
            TestBook(id: "cd01-one", name: "Lower cd", author: "C"),
            TestBook(id: "CD02-TWO", name: "Upper cd", author: "D"),
            TestBook(id: "Ef-mixed", name: "Mixed", author: "E"),
            TestBook(id: "eF-other", name: "Mixed too", author: "F"),
        ]
        let h = try await DaemonHarness("firstuse-case", books: books)
        defer { h.shutdown() }
        let c = Self.ctl
        let upper = try await h.tools.must("\(c) get 35bf --json")
        #expect(upper.output.hasPrefix(#"{"id":"35BF0A11-UPPER","name":"Upper""#), "\(upper)")
        let lower = try await h.tools.must("\(c) get 77AB-LOWER --json")
        #expect(lower.output.hasPrefix(#"{"id":"77ab-lower""#), "\(lower)")
        // cd01 and CD02 both start with "cd" ignoring case, but only cd01 in the exact case.
        let exact = try await h.tools.must("\(c) get cd --json")
        #expect(exact.output.hasPrefix(#"{"id":"cd01-one""#), "\(exact)")
        let ambiguous = try await h.tools.shell("\(c) get ef")
        #expect(ambiguous.status == 2, "\(ambiguous)")
        #expect(ambiguous.output.contains("id prefix 'ef' is ambiguous: 2 books match\n  Ef-mixed\n  eF-other"))
        #expect(try await h.tools.shell("\(c) get zz").status == 5)
        try await h.tools.must("\(c) update 35bf0a11-upper --author 'Someone' > /dev/null")
        try await h.tools.must("\(c) delete 77AB > /dev/null")
        #expect(await eventually(timeout: 10) { h.fileBooks["35BF0A11-UPPER"]?.author == "Someone" }, "\(h.fileText)")
        #expect(await eventually(timeout: 10) { h.fileBooks["77ab-lower"] == nil }, "\(h.fileText)")
    }
}
