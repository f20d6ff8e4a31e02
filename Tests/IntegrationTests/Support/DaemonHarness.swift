import BooksPlatform
import BooksTestSupport
import FoundationEssentials
import Glibc
import Testing

enum HarnessEnvironment {
    /// A small, explicit environment: nothing from systemd (NOTIFY_SOCKET, LISTEN_FDS…) leaks in.
    static func base(home: String?) -> [String: String] {
        var env: [String: String] = [
            "PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "xterm-256color",
        ]
        if let home { env["HOME"] = home } else if let h = getenv("HOME") { env["HOME"] = String(cString: h) }
        return env
    }
}

/// A booksd on a fresh temporary directory (`<base>/booksync-tests-NAME-XXXXXX/`: `data/` is the
/// watched directory with books.txt and the socket, `logs/` holds booksd.log and subscriber stderr,
/// `home/` is HOME for the tools: no user vimrc, emacs init or git config).
///
/// Environment knobs: BOOKSYNC_BIN_DIR (where booksd/booksctl are; default: next to the test
/// bundle), BOOKSYNC_KEEP_TEST_DIRS=1 (keep the directories for a post-mortem),
/// BOOKSYNC_TEST_LOG_LEVEL (booksd --log-level), BOOKSYNC_TEST_CONCURRENCY (daemons at once, 4).
/// (never under /tmp unless asked: editors behave differently there).
final class DaemonHarness: @unchecked Sendable {
    let directory: TemporaryDirectory
    var root: String { directory.path }  // everything of this test
    let dir: String  // the watched directory: books.txt and the socket
    let file: String
    let socket: String
    let home: String  // HOME for tools (no user vimrc/emacs init/git config)
    let logDir: String
    let tools: ToolRunner
    let confirmationMs: Int?
    private(set) var daemon: DaemonProcess?
    /// More booksd arguments (e.g. `--store`, `--dir`), set before `startDaemon()`.
    var extraDaemonArguments: [String] = []
    /// A command the daemon is run through (e.g. `prlimit --nofile=256:256 --`).
    var wrapper: [String] = []
    private var subscribers: [Subscriber] = []
    private static let counter = Locked(0)

    /// - Parameters:
    ///   - base: parent of the temp dir (`/var/tmp` by default; `/tmp` for the in-place editor variants).
    ///   - books: initial rows; nil = no books.txt at start.
    ///   - start: start the daemon and wait for readiness.
    ///   - socketOutside: put the socket in `<root>/run/` instead of `data/` (tests that move `data/`).
    init(
        _ name: String, base: String = "/var/tmp", books: [TestBook]? = Fixture.books(),
        confirmationMs: Int? = nil, start: Bool = true, socketOutside: Bool = false
    ) async throws {
        directory = try TemporaryDirectory(prefix: "booksync-tests-\(name)", base: base)
        dir = directory.makeDirectory("data")
        file = dir + "/books.txt"
        socket = (socketOutside ? directory.makeDirectory("run") : dir) + "/booksd.sock"
        home = directory.makeDirectory("home")
        logDir = directory.makeDirectory("logs")
        self.confirmationMs = confirmationMs
        var env = HarnessEnvironment.base(home: home)
        env["GIT_AUTHOR_NAME"] = "Test"
        env["GIT_AUTHOR_EMAIL"] = "test@example.invalid"
        env["GIT_COMMITTER_NAME"] = "Test"
        env["GIT_COMMITTER_EMAIL"] = "test@example.invalid"
        env["BOOKS_SOCKET"] = socket
        tools = ToolRunner(environment: env, workingDirectory: dir)
        if let books { try TestFiles.write(Fixture.text(books), to: file) }
        if start {
            do { try await startDaemon() } catch {
                shutdown()
                throw error
            }
        }
    }

    static func uniqueNumber() -> Int {
        counter.withLock {
            $0 += 1
            return $0
        }
    }

    var daemonLogPath: String { logDir + "/booksd.log" }

    func startDaemon() async throws {
        try spawnDaemon()
        try await waitReady(timeout: 15)
    }

    /// True once the daemon process holds an inotify instance (an `anon_inode:inotify` descriptor).
    func daemonHasInotifyInstance() -> Bool {
        guard let pid = daemon?.pid else { return false }
        return TestFiles.names(in: "/proc/\(pid)/fd").contains { name in
            var target = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            return n > 0
                && String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("inotify")
        }
    }

    /// Starts booksd (without waiting for it).
    func spawnDaemon() throws {
        var options = DaemonOptions(file: file, socket: socket, logPath: daemonLogPath)
        options.environment = HarnessEnvironment.base(home: home)
        options.extraArguments = extraDaemonArguments
        options.wrapper = wrapper
        if let confirmationMs {
            options.configFile = try directory.write("booksd.conf", "confirmation_ms = \(confirmationMs)\n")
        }
        daemon = try DaemonProcess(options, waitReady: false)
    }

    /// Waits until the socket accepts a connection and answers `hello`.
    func waitReady(timeout: Double) async throws {
        guard let daemon else { throw TestSupportError("booksd was not started") }
        try await daemon.waitUntilReady(timeout: timeout)
    }

    /// Runs `booksctl --socket S ARGS…`.
    func ctl(_ args: [String], timeout: Double = 10) async throws -> ChildResult {
        try await tools.run([BuildProducts.booksctl, "--socket", socket] + args, timeout: timeout)
    }

    /// Starts `booksctl subscribe --json --initial` (without `--initial` when `initial` is false,
    /// with `options` added) and waits until the initial books have arrived, so that every later
    /// edit is seen.
    func subscribe(
        initialCount: Int? = nil, store: String? = nil, initial: Bool = true, options: [String] = []
    ) async throws -> Subscriber {
        let expected = initial ? initialCount ?? parseBooks(fileText).count : 0
        let sub = try Subscriber(harness: self, initial: initial, store: store, options: options)
        subscribers.append(sub)
        try await sub.awaitInitial(count: expected, timeout: 10)
        return sub
    }

    /// `booksctl status --json`, decoded.
    func status(sourceLocation: SourceLocation = #_sourceLocation) async throws -> DaemonStatus {
        let result = try await ctl(["status", "--json"])
        guard result.succeeded else { throw TestSupportError("booksctl status --json: \(result)") }
        return try JSONDecoder().decode(DaemonStatus.self, from: Data(result.output.utf8))
    }

    /// `booksctl list --json-array`, decoded into books by id.
    func listedBooks() async throws -> [String: TestBook] {
        let result = try await ctl(["list", "--json-array"])
        guard result.succeeded else { throw TestSupportError("booksctl list --json-array: \(result)") }
        let listed = try JSONDecoder().decode([ListedBook].self, from: Data(result.output.utf8))
        return Dictionary(
            listed.map { ($0.id, TestBook(id: $0.id, name: $0.name, author: $0.author)) },
            uniquingKeysWith: { a, _ in a })
    }

    func daemonLog(lastLines: Int = 60) -> String {
        let lines = (TestFiles.readText(daemonLogPath) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        return "--- booksd log (\(daemonLogPath), last \(lastLines) lines) ---\n"
            + lines.suffix(lastLines).joined(separator: "\n")
    }

    var fileText: String { TestFiles.readText(file) ?? "" }
    var fileBooks: [String: TestBook] { parseBooks(fileText) }

    /// Stops subscribers and the daemon (SIGTERM, SIGKILL after 5 s) and removes the directory
    /// (unless BOOKSYNC_KEEP_TEST_DIRS is set).
    func shutdown() {
        for sub in subscribers { sub.stop() }
        subscribers.removeAll()
        if let daemon {
            let status = daemon.stop(grace: 5)
            if status != 0 && status != 128 + SIGTERM {
                print("[\(root)] booksd exited with status \(status) on SIGTERM\n\(daemonLog())")
            }
        }
        daemon = nil
        if !TemporaryDirectory.keepRequested { directory.remove() }
    }
}
