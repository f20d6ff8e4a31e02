import FoundationEssentials
import Glibc
import Testing

/// Where the package's built products live (`swift build` runs before `swift test`).
enum Products {
    static let binDirectory: String = locate()

    static var booksd: String { binDirectory + "/booksd" }
    static var booksctl: String { binDirectory + "/booksctl" }

    private static func locate() -> String {
        if let env = getenv("BOOKSYNC_BIN_DIR") { return String(cString: env) }
        // The test bundle is an executable in the same directory as the products.
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var dir = exe
            while let slash = dir.lastIndex(of: "/") {
                dir = String(dir[..<slash])
                if access(dir + "/booksd", X_OK) == 0 && access(dir + "/booksctl", X_OK) == 0 { return dir }
                if dir.hasSuffix("/.build") || dir.isEmpty { break }
            }
        }
        // Fall back to asking SwiftPM once, from the package root derived from this file's path.
        let packageRoot = String(#filePath.split(separator: "/Tests/", maxSplits: 1)[0])
        if let pipe = popen("cd '\(packageRoot)' && swift build --show-bin-path 2>/dev/null", "r") {
            var line = [CChar](repeating: 0, count: 4096)
            var last = ""
            while fgets(&line, Int32(line.count), pipe) != nil {
                last = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            pclose(pipe)
            let path = last.filter { $0 != "\n" }
            if !path.isEmpty { return path }
        }
        return packageRoot + "/.build/debug"
    }
}

enum HarnessEnvironment {
    /// A small, explicit environment: nothing from systemd (NOTIFY_SOCKET, LISTEN_FDS…) leaks in.
    static func base(home: String?) -> [String: String] {
        var env: [String: String] = [
            "PATH": getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "xterm-256color",
        ]
        if let home { env["HOME"] = home }
        else if let h = getenv("HOME") { env["HOME"] = String(cString: h) }
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
    let root: String          // everything of this test
    let dir: String           // the watched directory: books.txt and the socket
    let file: String
    let socket: String
    let home: String          // HOME for tools (no user vimrc/emacs init/git config)
    let logDir: String
    let tools: ToolRunner
    let confirmationMs: Int?
    private(set) var daemon: SpawnedProcess?
    private var subscribers: [Subscriber] = []
    private static let counterLock = HarnessLock()
    nonisolated(unsafe) private static var counter = 0

    /// - Parameters:
    ///   - base: parent of the temp dir (`/var/tmp` by default; `/tmp` for the in-place editor variants).
    ///   - books: initial rows; nil = no books.txt at start.
    ///   - start: start the daemon and wait for readiness.
    init(_ name: String, base: String = "/var/tmp", books: [TestBook]? = Fixture.books(),
         confirmationMs: Int? = nil, start: Bool = true) async throws {
        var template = Array("\(base)/booksync-tests-\(name)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed under \(base)") }
        root = String(cString: made)
        dir = root + "/data"
        file = dir + "/books.txt"
        socket = dir + "/booksd.sock"
        home = root + "/home"
        logDir = root + "/logs"
        self.confirmationMs = confirmationMs
        for d in [dir, home, logDir] { mkdir(d, 0o755) }
        var env = HarnessEnvironment.base(home: home)
        env["GIT_AUTHOR_NAME"] = "Test"; env["GIT_AUTHOR_EMAIL"] = "test@example.invalid"
        env["GIT_COMMITTER_NAME"] = "Test"; env["GIT_COMMITTER_EMAIL"] = "test@example.invalid"
        env["BOOKS_SOCKET"] = socket
        tools = ToolRunner(environment: env, workingDirectory: dir)
        if let books { try writeFile(file, Fixture.text(books)) }
        if start {
            do { try await startDaemon() } catch { shutdown(); throw error }
        }
    }

    static func uniqueNumber() -> Int {
        counterLock.withLock { counter += 1; return counter }
    }

    var daemonLogPath: String { logDir + "/booksd.log" }

    func startDaemon() async throws {
        try spawnDaemon()
        try await waitReady(timeout: 15)
    }

    /// True once the daemon process holds an inotify instance (an `anon_inode:inotify` descriptor).
    func daemonHasInotifyInstance() -> Bool {
        guard let pid = daemon?.pid, let dirp = opendir("/proc/\(pid)/fd") else { return false }
        defer { closedir(dirp) }
        while let entry = readdir(dirp) {
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self))
            var target = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            if n > 0, String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("inotify") {
                return true
            }
        }
        return false
    }

    func spawnDaemon() throws {
        var argv = [Products.booksd, "--file", file, "--socket", socket]
        if let confirmationMs {
            let config = root + "/booksd.conf"
            try writeFile(config, "confirmation_ms = \(confirmationMs)\n")
            argv += ["--config", config]
        }
        if let level = getenv("BOOKSYNC_TEST_LOG_LEVEL") { argv += ["--log-level", String(cString: level)] }
        daemon = try SpawnedProcess.spawn(argv, environment: HarnessEnvironment.base(home: home),
                                        stdout: .appendFile(daemonLogPath), stderr: .appendFile(daemonLogPath))
    }

    /// Polls until the socket accepts a connection and `booksctl ping` exits 0.
    func waitReady(timeout: Double) async throws {
        let deadline = monotonicNow() + timeout
        while monotonicNow() < deadline {
            if let status = daemon?.poll() {
                throw HarnessError("booksd exited with status \(status) before it was ready\n\(daemonLog())")
            }
            if canConnect(), let ping = try? await ctl(["ping"], timeout: 5), ping.succeeded { return }
            await pause(0.02)
        }
        throw HarnessError("booksd not ready after \(timeout) s\n\(daemonLog())")
    }

    private func canConnect() -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socket.utf8)
        guard path.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.enumerated() { raw[i] = b }
            raw[path.count] = 0
        }
        let len = socklen_t(MemoryLayout<sockaddr_un>.size)
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, len) == 0 }
        }
    }

    /// Runs `booksctl --socket S ARGS…`.
    func ctl(_ args: [String], timeout: Double = 10) async throws -> ToolResult {
        try await tools.run([Products.booksctl, "--socket", socket] + args, timeout: timeout)
    }

    /// Starts `booksctl subscribe --json --initial` and waits until the initial books have arrived,
    /// so that every later edit is seen.
    func subscribe(initialCount: Int? = nil) async throws -> Subscriber {
        let expected = initialCount ?? parseBooks(readFile(file) ?? "").count
        let sub = try Subscriber(harness: self, initial: true)
        subscribers.append(sub)
        try await sub.awaitInitial(count: expected, timeout: 10)
        return sub
    }

    /// `booksctl status --json`, decoded.
    func status(sourceLocation: SourceLocation = #_sourceLocation) async throws -> DaemonStatus {
        let result = try await ctl(["status", "--json"])
        guard result.succeeded else { throw HarnessError("booksctl status --json: \(result)") }
        return try JSONDecoder().decode(DaemonStatus.self, from: Data(result.output.utf8))
    }

    /// `booksctl list --json`, decoded into books by id.
    func listedBooks() async throws -> [String: TestBook] {
        let result = try await ctl(["list", "--json"])
        guard result.succeeded else { throw HarnessError("booksctl list --json: \(result)") }
        let listed = try JSONDecoder().decode([ListedBook].self, from: Data(result.output.utf8))
        return Dictionary(listed.map { ($0.id, TestBook(id: $0.id, name: $0.name, author: $0.author)) }, uniquingKeysWith: { a, _ in a })
    }

    func daemonLog(lastLines: Int = 60) -> String {
        let lines = (readFile(daemonLogPath) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        return "--- booksd log (\(daemonLogPath), last \(lastLines) lines) ---\n" + lines.suffix(lastLines).joined(separator: "\n")
    }

    var fileText: String { readFile(file) ?? "" }
    var fileBooks: [String: TestBook] { parseBooks(fileText) }

    /// Stops subscribers and the daemon (SIGTERM, SIGKILL after 5 s) and removes the directory.
    func shutdown() {
        for sub in subscribers { sub.stop() }
        subscribers.removeAll()
        if let daemon {
            let status = daemon.terminate(grace: 5)
            if status != 0 && status != 128 + SIGTERM {
                print("[\(root)] booksd exited with status \(status) on SIGTERM\n\(daemonLog())")
            }
        }
        daemon = nil
        if getenv("BOOKSYNC_KEEP_TEST_DIRS") == nil, let child = try? SpawnedProcess.spawn(
            ["rm", "-rf", root], environment: HarnessEnvironment.base(home: nil)) {
            _ = child.waitBlocking(timeout: 30)
        }
    }
}

/// A minimal lock (pthread mutex) usable from Swift 6 without Synchronization availability checks.
final class HarnessLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
