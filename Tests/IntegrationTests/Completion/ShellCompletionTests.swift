import BooksTestSupport
import Glibc
import Testing

/// `booksctl completion bash|zsh|fish` loaded into the real shells, against a real booksd: each
/// completes a command, an option, an option value and a book id prefix (ids come from the daemon
/// through `booksctl __complete ids`).
@Suite("shell completion in real bash, zsh and fish", .serialized)
struct ShellCompletionTests {
    static let books = [
        TestBook(id: "aa11-dune", name: "Dune", author: "Frank Herbert"),
        TestBook(id: "aa22-emma", name: "Emma", author: "Jane Austen"),
        TestBook(id: "bb33-ulysses", name: "Ulysses", author: "James Joyce"),
    ]

    /// A daemon on `books` and the script for `shell`, written to `<root>/script.SHELL`; with
    /// `stores`, the daemon also serves the stores `fiction` and `fables`.
    func setUp(_ shell: String, stores: Bool = false) async throws -> (DaemonHarness, String) {
        let harness = try await DaemonHarness("completion-\(shell)", books: Self.books, start: false)
        do {
            if stores {
                try TestFiles.write("7|Emma|Jane Austen\n", to: harness.dir + "/fiction.txt")
                try TestFiles.write("8|Faust|Goethe\n", to: harness.dir + "/fables.txt")
                harness.extraDaemonArguments = [
                    "--store", "fiction=\(harness.dir)/fiction.txt", "--store", "fables=\(harness.dir)/fables.txt",
                ]
            }
            try await harness.startDaemon()
        } catch {
            harness.shutdown()
            throw error
        }
        let generated = try await harness.ctl(["completion", shell])
        guard generated.succeeded else {
            harness.shutdown()
            throw TestSupportError("booksctl completion \(shell): \(generated)")
        }
        return (harness, try harness.directory.write("script.\(shell)", generated.output))
    }

    static func requireShell(_ name: String) -> Bool {
        if access("/usr/bin/\(name)", X_OK) == 0 || access("/bin/\(name)", X_OK) == 0 { return true }
        Issue.record("\(name) is not installed (scripts/setup.sh installs it)")
        return false
    }

    /// An interactive zsh in tmux with `script` autoloaded as `_booksctl` and booksctl on PATH,
    /// showing its prompt `READY%`.
    static func interactiveZsh(_ harness: DaemonHarness, script: String) async throws -> TmuxSession {
        let functions = harness.directory.makeDirectory("zfunc")
        _ = try await harness.tools.must("cp \(shellQuote(script)) \(shellQuote(functions))/_booksctl")
        let zdotdir = harness.directory.makeDirectory("zdot")
        _ = try harness.directory.write(
            "zdot/.zshrc",
            """
            fpath=(\(functions) $fpath)
            autoload -Uz compinit && compinit -u -D
            PS1='READY%% '

            """)
        let command =
            "env ZDOTDIR=\(shellQuote(zdotdir)) PATH=\(shellQuote(BuildProducts.binDirectory)):$PATH zsh -i"
        let tmux = try await TmuxSession(tools: harness.tools, command: command)
        do { try await tmux.waitForScreen(containing: "READY%") } catch {
            tmux.kill()
            throw error
        }
        return tmux
    }

    /// The candidates `complete -C LINE` gives in fish for each of `lines` (their first field:
    /// the value without its description), and fish's whole output.
    static func fishCompletions(
        _ harness: DaemonHarness, script: String, _ lines: [String]
    ) async throws -> (groups: [[String]], output: String) {
        let commands = lines.map { "complete -C \"\($0)\"" }.joined(separator: "; echo ==\n")
        let result = try await harness.tools.must(
            """
            export PATH=\(shellQuote(BuildProducts.binDirectory)):$PATH
            fish --no-config -c 'source \(script)
            \(commands)'
            """)
        let groups = result.output.split(separator: "==\n", omittingEmptySubsequences: false).map {
            $0.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(groups.count == lines.count, "\(result.output)")
        return (groups, result.output)
    }

    /// Without a daemon (or without a `stores` command) `__complete` prints nothing and exits 0.
    @Test("bash: complete -F registered; commands, options, values and id prefixes")
    func bash() async throws {
        let (harness, script) = try await setUp("bash")
        defer { harness.shutdown() }
        let exe = shellQuote(BuildProducts.booksctl)
        let result = try await harness.tools.must(
            """
            source \(shellQuote(script))
            complete -p booksctl
            c() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _booksctl; echo "[${COMPREPLY[*]}]"; }
            c \(exe) su
            c \(exe) list --of
            c \(exe) list --sort -n
            c \(exe) get aa
            c \(exe) --socket "$BOOKS_SOCKET" delete bb
            c \(exe) completion z
            c \(exe) help up
            echo "[$(\(exe) __complete ids a --socket /nonexistent/booksd.sock; echo "exit $?")]"
            echo "[$(\(exe) __complete stores a; echo "exit $?")]"
            """)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "complete -F _booksctl booksctl")
        #expect(
            Array(lines.dropFirst())
                == [
                    "[subscribe]", "[--offset]", "[-name]", "[aa11-dune aa22-emma]", "[bb33-ulysses]", "[zsh]",
                    "[update]", "[exit 0]", "[exit 0]",
                ], "\(result.output)")
    }

    @Test("bash: --store completes the names of a daemon serving several stores")
    func bashStoreNames() async throws {
        let (harness, script) = try await setUp("bash", stores: true)
        defer { harness.shutdown() }
        let exe = shellQuote(BuildProducts.booksctl)
        let result = try await harness.tools.must(
            """
            source \(shellQuote(script))
            c() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _booksctl; echo "[${COMPREPLY[*]}]"; }
            c \(exe) --socket "$BOOKS_SOCKET" --store f
            c \(exe) --socket "$BOOKS_SOCKET" --store fi
            c \(exe) --socket "$BOOKS_SOCKET" --store d
            """)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines == ["[fables fiction]", "[fiction]", "[default]"], "\(result.output)")
    }

    @Test("fish: complete -C offers commands, options, values and id prefixes")
    func fish() async throws {
        guard Self.requireShell("fish") else { return }
        let (harness, script) = try await setUp("fish")
        defer { harness.shutdown() }
        let (groups, output) = try await Self.fishCompletions(
            harness, script: script,
            [
                "booksctl su", "booksctl list --of", "booksctl list --sort=-n", "booksctl get aa",
                "booksctl --socket $BOOKS_SOCKET delete bb",
            ])
        guard groups.count == 5 else { return }
        #expect(groups[0] == ["subscribe"])
        #expect(groups[1] == ["--offset"])
        // fish reads a separate word starting with "-" as an option: values like -name go after "=".
        #expect(groups[2] == ["--sort=-name"])
        #expect(groups[3] == ["aa11-dune", "aa22-emma"])
        #expect(groups[4] == ["bb33-ulysses"])
        #expect(output.contains("aa11-dune\tDune"), "ids are described by their book's name")
    }

    @Test("zsh (interactive, in tmux): Tab completes a command, an option and an id prefix")
    func zsh() async throws {
        guard Self.requireShell("zsh") else { return }
        let (harness, script) = try await setUp("zsh")
        defer { harness.shutdown() }
        let tmux = try await Self.interactiveZsh(harness, script: script)
        defer { tmux.kill() }
        for (typed, shown) in [
            ("booksctl su", "booksctl subscribe"), ("booksctl list --of", "booksctl list --offset"),
            ("booksctl delete bb", "booksctl delete bb33-ulysses"), ("booksctl get aa", "aa22-emma"),
        ] {
            try await tmux.send("C-u")
            try await tmux.type(typed)
            try await tmux.send("Tab")
            try await tmux.waitForScreen(containing: shown)
        }
        let screen = await tmux.screen()
        #expect(screen.contains("aa11-dune") && screen.contains("Dune") && !screen.contains("bb33"), "\(screen)")
    }
}
