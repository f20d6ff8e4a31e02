import BooksCore
import Glibc
import Testing

@testable import booksctl

/// The man page, the completion scripts and `--version` follow the command catalog.
@Suite struct PackagingCatalogTests {
    static let packageRoot = String(
        #filePath.split(separator: "/Tests/BooksctlTests/", maxSplits: 1, omittingEmptySubsequences: false)[0])

    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("docs/man/booksctl.1 is the page generated from the catalog (regenerate: booksctl __manpage)")
    func manPageIsGenerated() throws {
        let checkedIn = try #require(Self.read(Self.packageRoot + "/docs/man/booksctl.1"))
        #expect(
            checkedIn == ManPage.booksctl,
            "docs/man/booksctl.1 is out of date: run .build/debug/booksctl __manpage > docs/man/booksctl.1")
    }

    @Test("the man page documents every command, option, exit code, NO_COLOR and the socket search order")
    func manPageCoversTheCatalog() {
        let page = ManPage.booksctl
        for spec in CommandCatalog.all {
            #expect(page.contains(".SS \(spec.name)\n"), "command \(spec.name)")
            for option in spec.options {
                #expect(page.contains("\\fB\\-\\-\(ManPage.escape(option.long))\\fR"), "\(spec.name) --\(option.long)")
            }
        }
        for option in CommandCatalog.globalOptions {
            #expect(page.contains("\\-\\-\(ManPage.escape(option.long))"), "global --\(option.long)")
        }
        for code in ExitCode.allCases { #expect(page.contains(".B \(code.rawValue)\n")) }
        #expect(page.contains("\\-\\-offset") && page.contains("\\-\\-expect\\-version"))
        #expect(page.contains("NO_COLOR") && page.contains("$XDG_RUNTIME_DIR/booksd.sock"))
        #expect(page.contains("./.booksd.sock") && page.contains("/run/booksd/booksd.sock"))
        #expect(page.contains("\"BookSync \(BookSyncVersion.number)\""))
    }

    @Test("every option booksctl --help lists before the command is in CommandCatalog.globalOptions")
    func globalOptionsMatchHelp() {
        let help = HelpText.tool
        guard let start = help.firstRange(of: "GLOBAL OPTIONS"), let end = help.firstRange(of: "EXAMPLES") else {
            Issue.record("no GLOBAL OPTIONS section in booksctl --help")
            return
        }
        let section = help[start.upperBound..<end.lowerBound]
        var named = Set<String>()
        let separators: Set<Character> = [" ", ",", "(", ")", "\n"]
        for word in section.split(whereSeparator: { separators.contains($0) }) where word.hasPrefix("--") {
            named.insert(String(word.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" }))
        }
        // The section also mentions command options (subscribe's --since) in passing.
        let listed = Set((CommandCatalog.globalOptions + CommandCatalog.all.flatMap(\.options)).map(\.long))
        #expect(named.subtracting(listed).isEmpty, "missing from globalOptions: \(named.subtracting(listed))")
    }

    @Test("each script names every command and option of the catalog")
    func scriptsCoverTheCatalog() {
        for shell in CompletionShell.allCases {
            let script = CompletionScript.render(shell)
            for spec in CommandCatalog.all {
                #expect(script.contains(spec.name), "\(shell): \(spec.name)")
                for option in spec.options { #expect(script.contains(option.long), "\(shell): --\(option.long)") }
            }
            for option in CommandCatalog.globalOptions { #expect(script.contains(option.long)) }
        }
    }

    @Test("commands added to the catalog are completed from their placeholders (no generator change)")
    func newCommandsArePickedUp() {
        let check = CommandSpec(
            name: "check", summary: "validate a file", positionals: [("FILE", "the file")],
            options: [.value("cursor-file", "PATH", "keep the cursor"), .value("exec", "CMD [ARGS…]", "run")],
            details: [], examples: [])
        let many = CommandSpec(
            name: "get", summary: "books", positionals: [("ID…", "ids")], options: [], details: [], examples: [])
        let model = CompletionModel(commands: [check, many, HelpCommand.spec])
        #expect(model.commands[0].positionals == [.file])
        #expect(model.commands[0].options.map(\.value) == [.file, .command])
        #expect(model.commands[1].positional(at: 0) == .bookID && model.commands[1].positional(at: 3) == .bookID)
        #expect(model.commands[2].positionals == [.choices(["check", "get"])])
        #expect(model.valueOptions.contains("--cursor-file") && model.valueOptions.contains("--socket"))
        let bash = BashCompletion(model: model).script
        #expect(bash.contains("--cursor-file) kind=file ;;") && bash.contains("*) kind=id ;;"))
        let fish = FishCompletion(model: model).script
        #expect(fish.contains("-l exec -x -a '(__fish_complete_command)'"))
        #expect(fish.contains("'__booksctl_arg get 0 repeat' -x -a '(__booksctl_ids)'"))
        let zsh = ZshCompletion(model: model).script
        #expect(zsh.contains("'*:value:_booksctl_ids'") && zsh.contains("--cursor-file=[keep the cursor]:value:_files"))
    }

    @Test func versionAndCompletionParse() throws {
        #expect(try CommandLineParser.parse(["--version"]).command == .version)
        #expect(try CommandLineParser.parse(["completion", "fish"]).command == .completion(.fish))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["completion", "tcsh"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["completion"]) }
        #expect(HiddenCommands.match(["__complete", "ids", "ab", "--socket", "/s"]) != nil)
        #expect(HiddenCommands.match(["list"]) == nil)
    }
}
