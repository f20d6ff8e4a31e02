import BooksClient
import BooksCore
import BooksProtocol
import Foundation
import Glibc
import Synchronization
import Testing

/// Support for the change-feed integration tests: a real `booksd` in a temporary directory, a raw
/// socket client for protocol abuse, a recorder for feeds and a runner for child processes.
/// (Deliberately self-contained; the shared harness lives in Tests/IntegrationTests/Support.)
enum FeedEnv {
    /// The package's build directory holding `booksd` and `booksctl`.
    static let buildDirectory: String = {
        var candidates: [String] = []
        let argv0 = CommandLine.arguments.first ?? ""
        var url = URL(fileURLWithPath: argv0).standardizedFileURL
        for _ in 0..<6 {
            url.deleteLastPathComponent()
            candidates.append(url.path)
        }
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }   // Feed, IntegrationTests, Tests
        candidates.append(root.appendingPathComponent(".build/debug").path)
        for dir in candidates where FileManager.default.isExecutableFile(atPath: dir + "/booksd") {
            return dir
        }
        return root.appendingPathComponent(".build/debug").path
    }()

    static var booksd: String { buildDirectory + "/booksd" }
    static var booksctl: String { buildDirectory + "/booksctl" }

    /// A fresh directory under /var/tmp (short enough for socket paths).
    static func temporaryDirectory() throws -> String {
        var template = Array("/var/tmp/feedtest.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw FeedError("mkdtemp failed: errno \(errno)") }
        return String(cString: made)
    }
}

struct FeedError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A `booksd` child process on a temporary book file.
final class FeedDaemon: @unchecked Sendable {
    let directory: String
    let file: String
    let socket: String
    let settings: [String]
    private(set) var pid: pid_t = 0
    private(set) var logPath: String

    /// Creates the directory and (if given) the initial file, and starts the daemon.
    init(rows: [String] = [], settings: [String] = [], dirMode: mode_t = 0o700) async throws {
        directory = try FeedEnv.temporaryDirectory()
        chmod(directory, dirMode)
        file = directory + "/books.txt"
        socket = directory + "/booksd.sock"
        logPath = directory + "/booksd.log"
        self.settings = settings
        if !rows.isEmpty { try FeedDaemon.writeRaw(rows.map { $0 + "\n" }.joined(), to: file) }
        try await start()
    }

    deinit {
        if pid > 0 { kill(pid, SIGKILL); var status: Int32 = 0; waitpid(pid, &status, 0) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts `booksd` and waits until a client can connect.
    func start() async throws {
        var args = ["--file", file, "--socket", socket, "--confirmation-ms", "150", "--log-level", "debug"]
        for setting in settings { args += ["--set", setting] }
        pid = try FeedProcess.spawn(FeedEnv.booksd, args, stdoutPath: logPath, stderrPath: logPath)
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            if let client = try? await BooksClient.connect(socketPath: socket, clientName: "feed-probe") {
                client.close()
                return
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = 0
                throw FeedError("booksd exited at start: \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FeedError("booksd did not accept connections in time: \(log)")
    }

    /// SIGTERM, then waits for the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard pid > 0 else { return -1 }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
        return status
    }

    /// SIGKILL (a crash), then reaps the process.
    func crash() {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func connect(_ name: String = "feed-test") async throws -> BooksClient {
        try await BooksClient.connect(socketPath: socket, clientName: name)
    }

    /// A hand edit as editors save: the new content written beside the file, then renamed over it.
    func handWrite(_ content: String) throws {
        let temporary = directory + "/.hand-edit"
        try FeedDaemon.writeRaw(content, to: temporary)
        guard rename(temporary, file) == 0 else { throw FeedError("rename: errno \(errno)") }
    }

    /// A hand edit in place (as `echo ... > books.txt` does: truncate, then write).
    func handWriteInPlace(_ content: String) throws { try FeedDaemon.writeRaw(content, to: file) }

    /// Appends a row by hand (as `echo ... >> books.txt` does).
    func handAppend(_ row: String) throws {
        let fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { throw FeedError("open \(file): errno \(errno)") }
        defer { Glibc.close(fd) }
        let bytes = Array((row + "\n").utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw FeedError("append failed") }
    }

    func readFile() throws -> String { try String(contentsOfFile: file, encoding: .utf8) }

    /// Rows of the file as (id, name, author), comments and blanks skipped.
    func fileBooks() throws -> [Book] {
        try readFile().split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !line.hasPrefix("#") else { return nil }
            return Book(id: parts[0], name: parts[1], author: parts[2])
        }
    }

    static func writeRaw(_ content: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0o644)
        guard fd >= 0 else { throw FeedError("open \(path): errno \(errno)") }
        defer { Glibc.close(fd) }
        let bytes = Array(content.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw FeedError("write failed") }
    }
}

/// Records a `BooksClient` feed in the background; tests wait for conditions on what arrived.
final class FeedRecorder: Sendable {
    let items = Mutex<[FeedItem]>([])
    let finished = Mutex<String?>(nil)
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncThrowingStream<FeedItem, any Error>) {
        let t = Task { [self] in
            do {
                for try await item in stream { self.items.withLock { $0.append(item) } }
                self.finished.withLock { $0 = "finished" }
            } catch {
                self.finished.withLock { $0 = "error: \(error)" }
            }
        }
        task.withLock { $0 = t }
    }

    func cancel() { task.withLock { $0?.cancel() } }

    var snapshot: [FeedItem] { items.withLock { $0 } }

    /// The `change` items received.
    var changes: [FeedChange] {
        snapshot.compactMap { if case .change(let c) = $0 { return c } else { return nil } }
    }

    /// The highest seq of a received change (or snapshot).
    var lastSeq: UInt64 {
        snapshot.reduce(0) { acc, item in
            switch item {
            case .change(let c): return max(acc, c.seq)
            case .snapshot(let s): return max(acc, s.seq)
            default: return acc
            }
        }
    }

    /// Waits until `condition` holds on the items; fails the test on timeout.
    @discardableResult
    func wait(_ what: String, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation,
              _ condition: ([FeedItem]) -> Bool) async -> Bool {
        let ok = await feedWaitUntil(timeout: timeout) { condition(self.snapshot) }
        if !ok { Issue.record("timed out waiting for \(what); got \(snapshot)", sourceLocation: sourceLocation) }
        return ok
    }

    func waitForSeq(_ seq: UInt64, timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait("seq \(seq)", timeout: timeout, sourceLocation: sourceLocation) { _ in self.lastSeq >= seq }
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` passes.
func feedWaitUntil(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// The seq of a feed item, if it has one.
func feedSeq(_ item: FeedItem) -> UInt64? {
    switch item {
    case .change(let c): return c.seq
    case .snapshot(let s): return s.seq
    case .resyncRequired(_, let seq, _): return seq
    case .heartbeat(let p): return p.seq
    case .shutdown: return nil
    }
}

/// A raw, blocking Unix-socket client that speaks bytes, for protocol abuse.
final class FeedRawSocket: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FeedError("socket: errno \(errno)") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else { let e = errno; Glibc.close(fd); throw FeedError("connect: errno \(e)") }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }   // the daemon may have closed already
            offset += n
        }
    }

    /// Sends hello and returns its reply line.
    func hello() throws -> [String: Any] {
        send("{\"id\":\"h\",\"op\":\"hello\",\"version\":1}\n")
        guard let reply = readJSON() else { throw FeedError("no hello reply") }
        return reply
    }

    /// The next line, or nil at end of stream / timeout.
    func readLine(timeout: Duration = .seconds(5)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
            guard poll(&p, 1, ms) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    func readJSON(timeout: Duration = .seconds(5)) -> [String: Any]? {
        guard let line = readLine(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// True when the daemon closed the connection (EOF) within `timeout` (pending lines are skipped).
    func isClosedByPeer(timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return true }
            buffer += chunk[0..<n]
        }
        return false
    }
}

/// The error code of a raw reply object.
func feedErrorCode(_ reply: [String: Any]?) -> String? {
    (reply?["error"] as? [String: Any])?["code"] as? String
}

/// Child processes with output captured to files.
enum FeedProcess {
    static func spawn(_ path: String, _ args: [String], stdoutPath: String, stderrPath: String,
                      prefix: [String] = []) throws -> pid_t {
        let argv = prefix.isEmpty ? [path] + args : prefix + [path] + args
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let rc = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        guard rc == 0 else { throw FeedError("posix_spawn \(argv[0]): \(rc)") }
        return pid
    }

    /// Runs to completion (with a timeout) and returns (status, stdout, stderr).
    static func run(_ path: String, _ args: [String], prefix: [String] = [], timeout: Duration = .seconds(20))
        async throws -> (status: Int32, out: String, err: String) {
        let dir = try FeedEnv.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pid = try spawn(path, args, stdoutPath: dir + "/out", stderrPath: dir + "/err", prefix: prefix)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + timeout
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline { kill(pid, SIGKILL); waitpid(pid, &status, 0); break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let out = (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (code, out, err)
    }
}
