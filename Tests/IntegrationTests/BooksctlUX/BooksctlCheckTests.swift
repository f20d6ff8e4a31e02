import BooksTestSupport
import FoundationEssentials
import Testing

/// `booksctl check`: JSON book files, several files, stdin, and the pre-commit recipe of
/// docs/CLI.md run as a real git hook.
@Suite("booksctl check", .timeLimit(.minutes(2))) struct BooksctlCheckTests {
    static let ctl = shellQuote(BuildProducts.booksctl)

    @Test("JSON files by extension or --format; several files each checked; - reads stdin")
    func formatsFilesAndStdin() async throws {
        let h = try await DaemonHarness("check", books: Fixture.books(count: 2), start: false)
        defer { h.shutdown() }
        let c = Self.ctl
        let good =
            #"[{"id":"1","name":"Dune","author":"Frank Herbert"},"# + "\n"
            + #" {"id":"2","name":"Emma","author":"Jane Austen"}]"# + "\n"
        try TestFiles.write(good, to: h.dir + "/good.json")
        try TestFiles.write(good, to: h.dir + "/good.data")
        try TestFiles.write(#"[{"id":"1","name":"Dune"}]"#, to: h.dir + "/broken.json")
        try TestFiles.write(
            #"[{"id":"1","name":"A","author":"B"},{"id":"1","name":"C","author":"D"}]"#, to: h.dir + "/twice.json")
        try TestFiles.write("3|Ok|Fine\nno bar here\n", to: h.dir + "/bad.txt")
        let json = try await h.tools.shell("\(c) check good.json books.txt")
        #expect(json.status == 0 && json.output.isEmpty, "\(json)")
        let forced = try await h.tools.shell("\(c) check --format json good.data")
        #expect(forced.status == 0 && forced.output.isEmpty, "\(forced)")
        let asText = try await h.tools.shell("\(c) check --format text good.json")
        #expect(asText.status == 1 && asText.output.hasPrefix("good.json:1: "), "\(asText)")
        let broken = try await h.tools.shell("\(c) check broken.json")
        #expect(broken.status == 1, "\(broken)")
        let brokenLines = broken.output.split(separator: "\n")
        #expect(brokenLines.count == 1, "one error for the file: \(broken)")
        #expect(broken.output.hasPrefix("broken.json: not a JSON array of {\"id\",\"name\",\"author\"} objects"))
        let twice = try await h.tools.shell("\(c) check twice.json")
        #expect(twice.status == 1 && twice.output.hasPrefix("twice.json: book 2: "), "\(twice)")
        let several = try await h.tools.shell("\(c) check good.json bad.txt broken.json")
        #expect(several.status == 1, "\(several)")
        #expect(
            several.output.contains("bad.txt:2: wrong number of fields") && several.output.contains("broken.json: "))
        let missing = try await h.tools.shell("\(c) check missing.txt bad.txt")
        #expect(missing.status == 2, "\(missing)")
        #expect(missing.output.contains("cannot read missing.txt") && missing.output.contains("bad.txt:2:"))
        let piped = try await h.tools.shell("printf '4|x|y\\nno bar\\n' | \(c) check -")
        #expect(piped.status == 1, "\(piped)")
        #expect(piped.output.hasPrefix("<stdin>:2: wrong number of fields"), "\(piped)")
        #expect(try await h.tools.shell("\(c) check --format json - < good.json").status == 0)
        #expect(try await h.tools.shell("\(c) check - < good.json").status == 1, "stdin is text by default")
        let objects = try await h.tools.shell("\(c) check --json bad.txt broken.json")
        let lines = objects.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(objects)")
        #expect(lines.first?.hasPrefix(#"{"file":"bad.txt","line":2,"code":"wrong-field-count""#) == true)
        #expect(lines.last?.hasPrefix(#"{"file":"broken.json","line":0,"code":"invalid-json""#) == true)
        #expect(try await h.tools.shell("\(c) check --format yaml books.txt").status == 2)
    }

    @Test("the pre-commit recipe of docs/CLI.md refuses staged bad content under a clean working tree")
    func preCommitRecipeChecksTheIndex() async throws {
        let h = try await DaemonHarness("check-git", books: Fixture.books(count: 2), start: false)
        defer { h.shutdown() }
        let doc = try #require(TestFiles.readText(BuildProducts.packageRoot + "/docs/CLI.md"))
        let section = try #require(doc.split(separator: "## Pre-commit check").dropFirst().first)
        let hook = try #require(section.split(separator: "```sh\n").dropFirst().first?.split(separator: "```").first)
        #expect(hook.hasPrefix("#!/bin/sh\n"), "a hook starts with its interpreter: \(hook)")
        let path = "PATH=\(shellQuote(BuildProducts.binDirectory)):$PATH"
        try await h.tools.must(
            """
            git init -q . && git add books.txt && git commit -qm start
            cat > .git/hooks/pre-commit <<'HOOK'
            \(hook)HOOK
            chmod +x .git/hooks/pre-commit
            """)
        // Bad content staged, the working tree clean again: the hook must look at the index.
        try await h.tools.must(
            "cp books.txt good && echo 'no bar here' >> books.txt && git add books.txt && cp good books.txt")
        let refused = try await h.tools.shell("export \(path); git commit -qm bad")
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.output.contains("<stdin>:3: wrong number of fields"), "\(refused)")
        // Good content staged, a bad working tree: the commit goes through.
        try await h.tools.must("git add books.txt && echo 'no bar here' >> books.txt")
        let accepted = try await h.tools.shell("export \(path); git commit -qm good --allow-empty")
        #expect(accepted.status == 0, "\(accepted)")
    }
}
