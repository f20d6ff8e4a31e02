import BooksTestSupport
import Testing

/// Values offered word by word: a fixed list (`--sort`, `completion`), store names after `-s`
/// and `--store` (names only, never the `stores` table's header), in bash, fish and zsh.
extension ShellCompletionTests {
    @Test("bash: each offered value is one word of COMPREPLY; -s is --store; no STORE header")
    func bashValuesWordByWord() async throws {
        let (harness, script) = try await setUp("bash", stores: true)
        defer { harness.shutdown() }
        let exe = shellQuote(BuildProducts.booksctl)
        let result = try await harness.tools.must(
            """
            source \(shellQuote(script))
            c() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _booksctl; printf '<%s>' "${COMPREPLY[@]}"; echo; }
            c \(exe) list --sort ''
            c \(exe) completion ''
            c \(exe) --socket "$BOOKS_SOCKET" --store ''
            c \(exe) --socket "$BOOKS_SOCKET" -s f
            c \(exe) --socket "$BOOKS_SOCKET" list -s fi
            c \(exe) -s fiction li
            """)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines == [
                "<id><name><author><-id><-name><-author>", "<bash><zsh><fish>", "<default><fables><fiction>",
                "<fables><fiction>", "<fiction>", "<list>", "",
            ], "\(result.output)")
    }

    @Test("fish: one candidate per value; -s is --store; no STORE header")
    func fishValuesWordByWord() async throws {
        guard Self.requireShell("fish") else { return }
        let (harness, script) = try await setUp("fish", stores: true)
        defer { harness.shutdown() }
        let (groups, output) = try await Self.fishCompletions(
            harness, script: script,
            [
                "booksctl list --sort ", "booksctl completion ", "booksctl --socket $BOOKS_SOCKET --store ",
                "booksctl --socket $BOOKS_SOCKET -s f", "booksctl -s fiction li",
            ])
        guard groups.count == 5 else { return }
        // fish sorts the candidates.
        #expect(groups[0] == ["author", "id", "name", "-author", "-id", "-name"], "\(output)")
        #expect(groups[1] == ["bash", "fish", "zsh"], "\(output)")
        #expect(groups[2] == ["default", "fables", "fiction"], "\(output)")
        #expect(groups[3] == ["fables", "fiction"], "\(output)")
        #expect(groups[4] == ["list"], "\(output)")
    }

    @Test("zsh (interactive, in tmux): values listed one by one; -s is --store; no STORE header")
    func zshValues() async throws {
        guard Self.requireShell("zsh") else { return }
        let (harness, script) = try await setUp("zsh", stores: true)
        defer { harness.shutdown() }
        let tmux = try await Self.interactiveZsh(harness, script: script)
        defer { tmux.kill() }
        func complete(_ typed: String, shows shown: String) async throws -> String {
            try await tmux.send("C-u")
            try await tmux.send("C-l")
            try await tmux.type(typed)
            try await tmux.send("Tab")
            try await tmux.waitForScreen(containing: shown)
            return await tmux.screen()
        }
        let sorts = try await complete("booksctl list --sort ", shows: "-author")
        let words = sorts.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        #expect(["id", "name", "author", "-id", "-name", "-author"].allSatisfy(words.contains), "\(sorts)")
        let shells = try await complete("booksctl completion ", shows: "fish")
        #expect(shells.contains("bash") && shells.contains("zsh"), "\(shells)")
        let stores = try await complete("booksctl --store ", shows: "fables")
        #expect(stores.contains("default") && stores.contains("fiction") && !stores.contains("STORE"), "\(stores)")
        _ = try await complete("booksctl -s fi", shows: "booksctl -s fiction")
        _ = try await complete("booksctl -s fiction li", shows: "booksctl -s fiction list")
    }
}
