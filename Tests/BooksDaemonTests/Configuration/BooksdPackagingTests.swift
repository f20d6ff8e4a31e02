import BooksCore
import BooksDaemon
import BooksTestSupport
import Testing

/// booksd(8) against the real command line parser, the one version, and `--user` (the per-user
/// service's configuration and book file).
@Suite struct BooksdPackagingTests {
    static let root = BuildProducts.packageRoot

    /// The `--option` names at the start of the lines of `text`'s OPTIONS part.
    static func options(in lines: [Substring]) -> Set<String> {
        var names = Set<String>()
        for line in lines {
            var rest = line.drop { $0 == " " || $0 == "." || $0.isLetter }
            rest = rest.drop { $0 == " " }
            let unescaped = String(rest).replacing("\\-", with: "-").replacing("\\fB", with: "")
            guard unescaped.hasPrefix("--") else { continue }
            names.insert(String(unescaped.dropFirst(2).prefix { $0.isLetter || $0 == "-" }))
        }
        return names
    }

    @Test("booksd(8), booksd --help and the parser list the same options")
    func manPageMatchesTheParser() throws {
        let page = try #require(TestFiles.readText(Self.root + "/docs/man/booksd.8"))
        let lines = page.split(separator: "\n")
        let start = try #require(lines.firstIndex(of: ".SH OPTIONS"))
        let end = try #require(lines[(start + 1)...].firstIndex { $0.hasPrefix(".SH ") })
        let inPage = Self.options(in: lines[start..<end].filter { $0.hasPrefix(".B") }.map { $0 })
        let inHelp = Self.options(in: BooksdCommandLine.usage.split(separator: "\n").map { $0 })
        #expect(inPage.isSuperset(of: ["set", "confirmation-ms", "force-polling", "user", "state-directory"]))
        #expect(
            inPage == inHelp, "booksd.8 only: \(inPage.subtracting(inHelp)); --help only: \(inHelp.subtracting(inPage))"
        )
        for name in inHelp {
            let value = ["help", "version", "check-config", "force-polling", "user"].contains(name) ? [] : ["x=1"]
            do {
                _ = try BooksdCommandLine.parse(["--\(name)"] + value)
            } catch {
                guard case .unknownOption = error else { continue }
                Issue.record("--\(name) is documented but the parser does not know it")
            }
        }
    }

    @Test("the man pages carry the one version; booksd --version prints it")
    func version() throws {
        for page in ["booksd.8", "booksd.conf.5", "booksctl.1"] {
            let text = try #require(TestFiles.readText(Self.root + "/docs/man/" + page))
            #expect(text.contains("\"BookSync \(BookSyncVersion.number)\""), "\(page): update its .TH line")
        }
        #expect(BooksdCommandLine.versionString == "booksd \(BookSyncVersion.number)")
    }

    @Test("--user reads the XDG configuration when it exists and defaults the book file to XDG data")
    func userPaths() throws {
        let env = ["HOME": "/home/ann", "XDG_CONFIG_HOME": "/cfg"]
        let paths = try #require(UserServicePaths(environment: env))
        #expect(paths.configFile == "/cfg/booksd/booksd.conf")
        #expect(paths.bookFile == "/home/ann/.local/share/booksd/books.txt")
        #expect(paths.bookDirectory == "/home/ann/.local/share/booksd")
        #expect(UserServicePaths(environment: [:]) == nil)
        #expect(
            UserServicePaths(environment: ["HOME": "/h", "XDG_DATA_HOME": "relative"])?.bookFile
                == "/h/.local/share/booksd/books.txt")

        let read: (String) throws(ConfigurationError) -> String = { path in
            #expect(path == "/cfg/booksd/booksd.conf")
            return "heartbeat_seconds = 7\n"
        }
        guard
            case .run(let config) = BooksdCommandLine.evaluate(
                arguments: ["--user"], environment: env, readFile: read, fileExists: { _ in true })
        else { throw TestSupportError("--user did not run") }
        #expect(config.heartbeatSeconds == 7 && config.filePath == paths.bookFile)

        guard
            case .run(let absent) = BooksdCommandLine.evaluate(
                arguments: ["--user", "--file", "/b.txt"], environment: env,
                readFile: { _ throws(ConfigurationError) in throw .unreadableFile(path: "?", reason: "read") },
                fileExists: { _ in false })
        else { throw TestSupportError("--user without a configuration file did not run") }
        #expect(absent.filePath == "/b.txt" && absent.heartbeatSeconds == DaemonConfiguration().heartbeatSeconds)

        guard
            case .run(let explicit) = BooksdCommandLine.evaluate(
                arguments: ["--user", "--config", "/etc/x.conf"], environment: env,
                readFile: { _ throws(ConfigurationError) in "file = /srv/b.txt\n" }, fileExists: { _ in true })
        else { throw TestSupportError("--user --config did not run") }
        #expect(explicit.filePath == "/srv/b.txt")
    }
}
