// Support for the fault suite (docs/RELIABILITY.md). Self-contained on purpose: it runs the real
// `booksd` from the package build directory and talks the wire protocol over raw sockets, so the
// tests see exactly what any client sees (and can misbehave at the byte level).
import BooksCore
import BooksProtocol
import Foundation
import Glibc
import Testing

// MARK: Environment

enum Rel {
    /// The package root, found from this file's path.
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The `booksd` built by `swift build` / `swift test`.
    static var booksd: String {
        for candidate in [".build/debug/booksd", ".build/x86_64-unknown-linux-gnu/debug/booksd"] {
            let path = packageRoot + "/" + candidate
            if access(path, X_OK) == 0 { return path }
        }
        return packageRoot + "/.build/debug/booksd"
    }

    /// An integer knob from the environment (long variants of the suite).
    static func knob(_ name: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback
    }

    static var isRoot: Bool { geteuid() == 0 }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(ms: Int) { usleep(UInt32(ms * 1000)) }

    /// Polls `condition` until it holds or `seconds` pass.
    @discardableResult
    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = now() + seconds
        while now() < deadline {
            if condition() { return true }
            sleep(ms: 5)
        }
        return condition()
    }

    static func readFile(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return [UInt8](data)
    }

    /// Writes a file the way an editor that saves in place does (same inode, O_TRUNC).
    static func writeInPlace(_ path: String, _ bytes: [UInt8]) {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(path): \(errno)")
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            precondition(n > 0)
            done += n
        }
        close(fd)
    }

    /// Writes a file the way `sed -i` / vim / most tools do: a new file renamed over the old one.
    static func writeRenameOver(_ path: String, _ bytes: [UInt8]) {
        let temp = path + ".edit-\(getpid())"
        writeInPlace(temp, bytes)
        precondition(rename(temp, path) == 0)
    }

    static func run(_ argv: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: argv[0])
        p.arguments = Array(argv.dropFirst())
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// VmRSS / VmHWM (KiB) of a process.
    static func memory(pid: pid_t) -> (rss: Int, hwm: Int) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
        var rss = 0, hwm = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.first == "VmRSS:", parts.count > 1 { rss = Int(parts[1]) ?? 0 }
            if parts.first == "VmHWM:", parts.count > 1 { hwm = Int(parts[1]) ?? 0 }
        }
        return (rss, hwm)
    }
}

/// A seeded, reproducible generator (SplitMix64).
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: Scratch directory

final class ScratchDir: Sendable {
    let path: String

    init(_ name: String) {
        var template = Array("/var/tmp/booksd-rel-\(name)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(path, 0o755)
    }

    var bookFile: String { path + "/books.txt" }
    var socket: String { path + "/booksd.sock" }
    var log: String { path + "/booksd.log" }

    func remove() {
        _ = Rel.run(["/bin/rm", "-rf", path])
    }

    deinit {
        if ProcessInfo.processInfo.environment["BOOKS_FAULT_KEEP"] == nil { remove() }
    }
}

// MARK: Daemon

/// A `booksd` child process with its stderr in `dir.log`.
final class DaemonProcess {
    let pid: pid_t
    let socket: String
    let logPath: String

    /// Starts booksd on `file` and waits until it answers `hello` (or fails the test).
    init(file: String, socket: String, log: String, extra: [String] = [], prefix: [String] = [],
         logLevel: String = "debug", waitReady: Bool = true) throws {
        self.socket = socket
        self.logPath = log
        unlink(socket)
        let argv = prefix + [Rel.booksd, "--file", file, "--socket", socket, "--log-level", logLevel] + extra
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { (s: String) in strdup(s) } + [nil]
        defer { for p in cargs { free(p) } }
        var env: [UnsafeMutablePointer<CChar>?] = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"].map { (s: String) in strdup(s) } + [nil]
        defer { for p in env { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, argv[0], &actions, nil, &cargs, &env)
        guard rc == 0 else { throw RelError("posix_spawn \(argv[0]): \(rc)") }
        pid = child
        if waitReady {
            let ready = Rel.waitUntil(20) {
                if !self.isRunning { return true }
                guard let c = try? RawClient(socket: socket, hello: true) else { return false }
                c.close()
                return true
            }
            guard ready, isRunning else {
                throw RelError("booksd did not become ready; log:\n" + (tail(40)))
            }
        }
    }

    var isRunning: Bool {
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid { exited = status; return false }
        return exited == nil
    }
    private(set) var exited: Int32?

    func kill9() {
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exited = status
    }

    /// SIGTERM and wait (SIGKILL after 10 s).
    func stop() {
        guard exited == nil else { return }
        Glibc.kill(pid, SIGTERM)
        if !Rel.waitUntil(10, { !isRunning }) { kill9() }
    }

    var memory: (rss: Int, hwm: Int) { Rel.memory(pid: pid) }

    func tail(_ lines: Int) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    var logText: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit { if exited == nil { kill9() } }
}

struct RelError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

// MARK: Raw protocol client

/// One connection speaking newline-delimited JSON over a Unix socket, with timeouts.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0
    /// Events received while waiting for replies.
    var events: [Event] = []

    init(socket: String, hello: Bool = true, timeout: Double = 5) throws {
        fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RelError("socket: \(errno)") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            let bytes = Array(socket.utf8)
            for (i, b) in bytes.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw RelError("connect \(socket): \(String(cString: strerror(e)))")
        }
        // Nothing in the suite may block forever on a socket.
        var limit = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        if hello {
            let reply = try request(Request(id: "h", op: .hello, version: ProtocolVersion.current, client: "reliability"), timeout: timeout)
            guard reply.ok else { throw RelError("hello refused: \(reply)") }
        }
    }

    private var isClosed = false
    /// Closes once (a second close could close an fd number another thread reused).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }
    deinit { close() }

    func sendRaw(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RelError("send: \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    func send(_ request: Request) throws {
        try sendRaw(try MessageEncoder.encode(request))
    }

    func makeID() -> String {
        nextID += 1
        return "r\(nextID)"
    }

    /// Reads one line (without the newline), or nil on timeout / end of stream.
    func readLine(timeout: Double) -> [UInt8]? {
        let deadline = Rel.now() + timeout
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = Array(buffer[..<nl])
                buffer.removeSubrange(...nl)
                return line
            }
            let left = deadline - Rel.now()
            if left <= 0 { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, Int32(max(1, left * 1000)))
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// Reads the next message: a reply or an event.
    func readMessage(timeout: Double) -> Message? {
        guard let line = readLine(timeout: timeout) else { return nil }
        let data = Data(line)
        if let event = try? JSONDecoder().decode(Event.self, from: data), line.starts(with: Array("{\"event\"".utf8)) || (try? JSONDecoder().decode(Reply.self, from: data)) == nil {
            return .event(event)
        }
        if let reply = try? JSONDecoder().decode(Reply.self, from: data) { return .reply(reply) }
        return .other(String(decoding: line, as: UTF8.self))
    }

    enum Message {
        case reply(Reply)
        case event(Event)
        case other(String)
    }

    /// Sends `request` and waits for the reply with its id (events seen meanwhile are kept).
    func request(_ request: Request, timeout: Double = 10) throws -> Reply {
        try send(request)
        return try awaitReply(id: request.id, timeout: timeout)
    }

    func awaitReply(id: String, timeout: Double = 10) throws -> Reply {
        let deadline = Rel.now() + timeout
        while Rel.now() < deadline {
            switch readMessage(timeout: deadline - Rel.now()) {
            case .reply(let reply) where reply.id == id: return reply
            case .reply: continue
            case .event(let e): events.append(e)
            case .other: continue
            case nil: throw RelError("no reply to \(id) (connection closed or timeout)")
            }
        }
        throw RelError("timeout waiting for reply \(id)")
    }

    func status() throws -> BooksProtocol.DaemonStatus {
        let reply = try request(Request(id: makeID(), op: .status))
        guard let status = reply.result?.status else { throw RelError("status failed: \(reply)") }
        return status
    }

    func list() throws -> [Book] {
        let reply = try request(Request(id: makeID(), op: .list))
        guard reply.ok, let books = reply.result?.books else { throw RelError("list failed: \(reply)") }
        return books
    }

    func insert(_ books: [Book]) throws -> Reply {
        try request(Request(id: makeID(), op: .insert, books: books.map { BookDraft(id: $0.id, name: $0.name, author: $0.author) }))
    }

    func update(_ patches: [BookPatch]) throws -> Reply {
        try request(Request(id: makeID(), op: .update, patches: patches))
    }

    func delete(_ ids: [String]) throws -> Reply {
        try request(Request(id: makeID(), op: .delete, ids: ids))
    }

    func get(_ id: String) throws -> (Book, UInt64)? {
        let reply = try request(Request(id: makeID(), op: .get, ids: [id]))
        guard reply.ok, let book = reply.result?.books?.first, let v = reply.result?.versions?.first else { return nil }
        return (book, v)
    }
}

// MARK: Book file helpers

enum BookFile {
    /// Parses bytes as `books.txt`.
    static func parse(_ bytes: [UInt8]) -> BookDocument { BookDocument(parsing: bytes) }

    static func books(_ bytes: [UInt8]) -> [String: Book] {
        Dictionary(parse(bytes).books.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func render(_ lines: [String]) -> [UInt8] { Array((lines.joined(separator: "\n") + "\n").utf8) }

    /// Comment and bad lines every fault test seeds the file with (they must survive everything).
    static let preservedLines = [
        "# BookSync reliability suite: this comment must survive",
        "this line has no separator and is bad",
        "#   indented comment | with a pipe",
        "too|many|fields|here|really",
    ]
}

extension Array where Element == Book {
    var byID: [String: Book] { Dictionary(map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
}

/// The parent of every fault-suite test: serialized, so the suites never run at the same time
/// (the latency and memory figures, and the kill timing, assume a daemon that is not competing
/// with another suite's daemon for the CPU).
@Suite(.serialized) enum ReliabilitySuite {}
