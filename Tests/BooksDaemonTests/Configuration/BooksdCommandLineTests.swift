import Testing

@testable import BooksDaemon

private let accounts = AccountResolver(userID: { _ in nil }, groupID: { _ in nil })

private func files(_ table: [String: String]) -> (String) throws(ConfigurationError) -> String {
    { path throws(ConfigurationError) in
        guard let text = table[path] else { throw .unreadableFile(path: path, reason: "No such file or directory") }
        return text
    }
}

@Suite struct BooksdCommandLineTests {
    @Test func parsesEveryFlag() throws {
        let c = try BooksdCommandLine.parse([
            "--file", "a.txt", "--socket=/tmp/s", "--config", "/etc/b.conf",
            "--format", "json", "--log-level=notice", "--check-config",
        ])
        #expect(c.filePath == "a.txt")
        #expect(c.socketPath == "/tmp/s")
        #expect(c.configPath == "/etc/b.conf")
        #expect(c.format == .json)
        #expect(c.logLevel == .notice)
        #expect(c.checkConfig && !c.help && !c.version)
        #expect(try BooksdCommandLine.parse(["-h"]).help)
        #expect(try BooksdCommandLine.parse(["--version"]).version)
        #expect(try BooksdCommandLine.parse([]) == BooksdCommandLine())
    }

    @Test func usageErrors() {
        #expect(throws: CommandLineError.unknownOption("--sokcet")) { try BooksdCommandLine.parse(["--sokcet", "x"]) }
        #expect(throws: CommandLineError.missingValue(option: "--file")) { try BooksdCommandLine.parse(["--file"]) }
        #expect(throws: CommandLineError.unexpectedArgument("books.txt")) { try BooksdCommandLine.parse(["books.txt"]) }
        #expect(throws: CommandLineError.unexpectedValue(option: "--help")) {
            try BooksdCommandLine.parse(["--help=yes"])
        }
        #expect(throws: CommandLineError.duplicateOption("--file")) {
            try BooksdCommandLine.parse(["--file", "a", "--file", "b"])
        }
        #expect(throws: CommandLineError.self) { try BooksdCommandLine.parse(["--format", "xml"]) }
        #expect(throws: CommandLineError.self) { try BooksdCommandLine.parse(["--log-level", "loud"]) }
    }

    @Test func flagsOverrideFileWhichOverridesDefaults() throws {
        let conf = "file = /srv/books.txt\nformat = json\nsocket = /run/a.sock\nlog_level = error\nmax_clients = 7\n"
        let read = files(["/etc/booksd.conf": conf])
        let fileOnly = try BooksdCommandLine.parse(["--config", "/etc/booksd.conf"]).configuration(
            resolver: accounts, readFile: read)
        #expect(fileOnly.filePath == "/srv/books.txt" && fileOnly.format == .json && fileOnly.logLevel == .error)
        #expect(fileOnly.maxClients == 7)
        let both = try BooksdCommandLine.parse([
            "--config", "/etc/booksd.conf", "--file", "x.txt", "--format", "text",
            "--socket", "/tmp/b.sock", "--log-level", "debug",
        ])
        .configuration(resolver: accounts, readFile: read)
        #expect(
            both.filePath == "x.txt" && both.format == .text && both.socketPath == "/tmp/b.sock"
                && both.logLevel == .debug)
        #expect(both.maxClients == 7)
        let none = try BooksdCommandLine.parse([]).configuration(resolver: accounts, readFile: read)
        #expect(none == DaemonConfiguration())
    }

    @Test func helpListsEveryFlagAndVersionPrints() {
        guard
            case .exit(0, let out, "") = BooksdCommandLine.evaluate(
                arguments: ["--help"], environment: [:], resolver: accounts,
                readFile: files([:]))
        else {
            Issue.record("help")
            return
        }
        for flag in [
            "--config", "--file", "--socket", "--format", "--log-level", "--check-config", "--help", "--version",
            "--state-directory", "booksd.conf(5)",
        ] {
            #expect(out.contains(flag), "help lacks \(flag)")
        }
        #expect(
            BooksdCommandLine.evaluate(
                arguments: ["--version"], environment: [:], resolver: accounts, readFile: files([:]))
                == .exit(status: 0, standardOutput: BooksdCommandLine.versionString + "\n", standardError: ""))
    }

    @Test func stateDirectoryDefaultsAndOverrides() throws {
        var config = DaemonConfiguration()
        config.filePath = "/srv/books/books.txt"
        #expect(config.effectiveStateDirectory(environment: [:]) == "/srv/books/.books.txt.history")
        #expect(
            config.effectiveStateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/a:/var/lib/b"]) == "/var/lib/a")
        config.filePath = "books.txt"
        #expect(config.effectiveStateDirectory(environment: [:]) == "./.books.txt.history")
        config.stateDirectory = "none"
        #expect(config.effectiveStateDirectory(environment: ["STATE_DIRECTORY": "/x"]) == nil)
        guard
            case .run(let set) = BooksdCommandLine.evaluate(
                arguments: ["--state-directory", "/tmp/h"], environment: [:], resolver: accounts,
                readFile: files([:]))
        else {
            Issue.record("--state-directory refused")
            return
        }
        #expect(set.stateDirectory == "/tmp/h")
    }

    @Test func checkConfigValid() {
        let read = files(["/c": "max_clients = 9\n"])
        let result = BooksdCommandLine.evaluate(
            arguments: ["--config", "/c", "--check-config", "--file", "/d/b.txt"],
            environment: [:], resolver: accounts, readFile: read, isDirectory: { $0 == "/d" })
        guard case .exit(0, let out, "") = result else {
            Issue.record("\(result)")
            return
        }
        #expect(out.hasPrefix("configuration OK (file /c"))
        #expect(out.contains("max_clients               = 9\n"))
        #expect(out.contains("file                      = /d/b.txt\n"))
        #expect(out.contains("socket                    = /d/.booksd.sock  (default)\n"))
    }

    @Test("--check-config fails (status 2) on a book file or socket whose directory does not exist")
    func checkConfigMissingDirectories() {
        let read = files(["/c": "socket = /run/x/booksd.sock\n"])
        let result = BooksdCommandLine.evaluate(
            arguments: ["--config", "/c", "--check-config", "--file", "/nowhere/b.txt"],
            environment: [:], resolver: accounts, readFile: read, isDirectory: { $0 == "/d" })
        guard case .exit(2, "", let err) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(
            err == """
                booksd: the directory of the book file /nowhere/b.txt (store 'default') does not exist: /nowhere
                booksd: the directory of the socket /run/x/booksd.sock does not exist: /run/x

                """)
        // Under socket activation the socket path is not bound by booksd.
        let activated = BooksdCommandLine.evaluate(
            arguments: ["--config", "/c", "--check-config", "--file", "/d/b.txt"],
            environment: ["LISTEN_FDS": "1"], resolver: accounts, readFile: read, isDirectory: { $0 == "/d" })
        guard case .exit(0, _, "") = activated else {
            Issue.record("\(activated)")
            return
        }
    }

    @Test func checkConfigInvalid() {
        let read = files(["/c": "# x\nmax_clients = many\n"])
        let result = BooksdCommandLine.evaluate(
            arguments: ["--config", "/c", "--check-config"],
            environment: [:], resolver: accounts, readFile: read)
        guard case .exit(2, "", let err) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(err.hasPrefix("booksd: /c: line 2: invalid value \"many\" for max_clients"))
        let missing = BooksdCommandLine.evaluate(
            arguments: ["--config", "/nope", "--check-config"],
            environment: [:], resolver: accounts, readFile: read)
        guard case .exit(2, "", let err2) = missing else {
            Issue.record("\(missing)")
            return
        }
        #expect(err2.contains("/nope"))
    }

    @Test func usageErrorExitsTwo() {
        let result = BooksdCommandLine.evaluate(
            arguments: ["--bogus"], environment: [:], resolver: accounts, readFile: files([:]))
        guard case .exit(2, "", let err) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(err.contains("unknown option \"--bogus\""))
        #expect(err.contains("--help"))
    }

    @Test func runWithMergedConfiguration() {
        var expected = DaemonConfiguration()
        expected.filePath = "b.txt"
        expected.fileIsExplicit = true
        #expect(
            BooksdCommandLine.evaluate(
                arguments: ["--file", "b.txt"], environment: [:], resolver: accounts,
                readFile: files([:])) == .run(expected))
    }
}
