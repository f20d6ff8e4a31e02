import Glibc

// Small, self-contained helpers for the systemd integration tests: a test-owned NOTIFY_SOCKET,
// spawning the real booksd/booksctl binaries, and a raw line client for the wire protocol.
// Deliberately independent of Tests/IntegrationTests/Support/.

enum SD {
    /// The package root, from this file's location (Tests/IntegrationTests/Systemd/<file>).
    static func packageRoot(_ file: String = #filePath) -> String {
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }

    /// The build directory holding the test binary (e.g. `.build/debug`), else `.build/debug`.
    static func binDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            var dir = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // …/.build/x86_64-unknown-linux-gnu/debug/BookSyncPackageTests.xctest
            while !dir.isEmpty, dir != "/" {
                dir = String(dir[..<(dir.lastIndex(of: "/") ?? dir.startIndex)])
                if access(dir + "/booksd", X_OK) == 0 { return dir }
                if dir.hasSuffix("/.build") { break }
            }
        }
        return packageRoot() + "/.build/debug"
    }

    static var booksd: String { binDirectory() + "/booksd" }
    static var booksctl: String { binDirectory() + "/booksctl" }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(ms: Int) { usleep(UInt32(ms * 1000)) }

    /// A fresh short temporary directory (socket paths must stay under 108 bytes).
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/bsd-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    static func removeTree(_ path: String) {
        guard path.hasPrefix("/tmp/bsd-") else { return }
        _ = system("rm -rf '\(path)'")
    }

    static func write(_ text: String, to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(path)")
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
    }

    static func append(_ text: String, to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        precondition(fd >= 0, "open \(path)")
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
        close(fd)
    }

    static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func isSocket(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Polls `condition` every 10 ms until it holds or `seconds` pass.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = now() + seconds
        while now() < end {
            if condition() { return true }
            sleep(ms: 10)
        }
        return condition()
    }

    static func makeAddress(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        precondition(bytes.count < 108, "socket path too long: \(path)")
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return address
    }

    /// Connects a stream socket to `path`; nil on failure.
    static func connectStream(_ path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = makeAddress(path)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 { close(fd); return nil }
        return fd
    }
}

/// A datagram socket standing in for systemd's notification socket.
final class NotifySocket {
    let path: String
    let fd: Int32
    /// Every datagram received so far, with its arrival time (`SD.now()`).
    private(set) var received: [(time: Double, text: String)] = []
    private var consumed = 0

    init(path: String) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        var address = SD.makeAddress(path)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(rc == 0, "bind \(path): \(errno)")
    }

    deinit { close(fd); unlink(path) }

    /// Reads every datagram available within `milliseconds`.
    func pump(milliseconds: Int32) {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var wait = milliseconds
        var buffer = [UInt8](repeating: 0, count: 65536)
        while poll(&pfd, 1, wait) > 0 {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n <= 0 { break }
            received.append((SD.now(), String(decoding: buffer[0..<n], as: UTF8.self)))
            wait = 0
        }
    }

    /// Waits for the next (not yet consumed) datagram matching `predicate`; nil on timeout.
    /// Datagrams before it are consumed as well.
    func next(within seconds: Double, where predicate: (String) -> Bool) -> (time: Double, text: String)? {
        let end = SD.now() + seconds
        while true {
            while consumed < received.count {
                let item = received[consumed]
                consumed += 1
                if predicate(item.text) { return item }
            }
            let left = end - SD.now()
            if left <= 0 { return nil }
            pump(milliseconds: Int32(max(1, min(left, 0.05) * 1000)))
        }
    }

    func next(within seconds: Double, containing line: String) -> (time: Double, text: String)? {
        next(within: seconds) { $0.split(separator: "\n").contains { $0 == line || $0.hasPrefix(line) } }
    }

    /// Every datagram text so far (after reading what is pending).
    var texts: [String] { pump(milliseconds: 0); return received.map(\.text) }

    /// The latest `STATUS=` value received so far.
    var lastStatus: String? {
        pump(milliseconds: 0)
        for item in received.reversed() {
            for line in item.text.split(separator: "\n") where line.hasPrefix("STATUS=") { return String(line.dropFirst(7)) }
        }
        return nil
    }
}

/// A child process started with `posix_spawn`.
final class ChildProcess {
    let pid: pid_t
    private(set) var exitStatus: Int32?
    private(set) var exitSignal: Int32?

    /// Starts `argv` with the test's environment minus systemd variables, plus `environment`.
    /// stdout and stderr go to `output` (a file) when given, else to /dev/null.
    init(_ argv: [String], environment: [String: String] = [:], output: String? = nil) {
        var env: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            cursor += 1
        }
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
                    "INVOCATION_ID", "JOURNAL_STREAM", "BOOKS_SOCKET"] {
            env[key] = nil
        }
        for (k, v) in environment { env[k] = v }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let out = output ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        // The test runs on a Dispatch/pool thread whose signal mask blocks most signals; a child
        // would inherit it (bash's "wait" then never sees SIGCHLD). Start it with an empty mask
        // and default dispositions.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, number)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { cArgs.forEach { free($0) }; cEnv.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawn(&child, argv[0], &actions, &attributes, cArgs, cEnv)
        precondition(rc == 0, "posix_spawn \(argv[0]): \(rc)")
        pid = child
    }

    deinit {
        if exitStatus == nil && exitSignal == nil {
            kill(pid, SIGKILL)
            _ = wait(seconds: 5)
        }
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Reaps the child if it exited within `seconds`; true when it has exited.
    @discardableResult
    func wait(seconds: Double) -> Bool {
        if exitStatus != nil || exitSignal != nil { return true }
        let end = SD.now() + seconds
        while true {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                if status & 0x7f == 0 { exitStatus = (status >> 8) & 0xff } else { exitSignal = status & 0x7f }
                return true
            }
            if r < 0 { return true }
            if SD.now() >= end { return false }
            SD.sleep(ms: 5)
        }
    }
}

/// A raw protocol client: newline-delimited JSON lines over the Unix socket.
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var closed = false

    init?(path: String) {
        guard let fd = SD.connectStream(path) else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next line within `seconds`; nil on timeout or end of stream.
    func readLine(within seconds: Double) -> String? {
        let end = SD.now() + seconds
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            if closed { return nil }
            let left = end - SD.now()
            if left <= 0 { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(max(1, left * 1000))) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { closed = true; continue }
            buffer += chunk[0..<n]
        }
    }

    /// Reads lines until one contains `fragment`; nil on timeout.
    func readLine(within seconds: Double, containing fragment: String) -> String? {
        let end = SD.now() + seconds
        while SD.now() < end {
            guard let line = readLine(within: end - SD.now()) else { return nil }
            if line.contains(fragment) { return line }
        }
        return nil
    }

    /// Sends `hello` and waits for its reply.
    func hello() -> Bool {
        send(#"{"id":"h","op":"hello","version":1,"client":"systemd-tests"}"#)
        return readLine(within: 5, containing: #""id":"h""#) != nil
    }

    /// hello + subscribe; true once the subscribe reply arrived.
    func subscribe() -> Bool {
        guard hello() else { return false }
        send(#"{"id":"s","op":"subscribe"}"#)
        return readLine(within: 5, containing: #""id":"s""#) != nil
    }
}

/// One booksd under test: its own directory, book file, socket, configuration and NOTIFY_SOCKET.
final class BooksdFixture {
    let directory: String
    let booksFile: String
    let socketPath: String
    let configPath: String
    let logPath: String
    let notify: NotifySocket
    private(set) var process: ChildProcess?
    private(set) var startedAt = 0.0

    init(books: [String] = ["b1|Dune|Frank Herbert", "b2|Emma|Jane Austen", "b3|Ulysses|James Joyce"],
         extraConfig: String = "") {
        directory = SD.temporaryDirectory()
        booksFile = directory + "/books.txt"
        socketPath = directory + "/booksd.sock"
        configPath = directory + "/booksd.conf"
        logPath = directory + "/booksd.log"
        notify = NotifySocket(path: directory + "/notify.sock")
        SD.write(books.map { $0 + "\n" }.joined(), to: booksFile)
        writeConfig(extraConfig)
    }

    deinit {
        process = nil
        SD.removeTree(directory)
    }

    func writeConfig(_ extra: String) {
        SD.write("file = \(booksFile)\nsocket = \(socketPath)\nconfirmation_ms = 200\n\(extra)", to: configPath)
    }

    /// Starts booksd with `NOTIFY_SOCKET` pointing at the test's socket (plus `environment`).
    /// With `watchdogUSec`, also sets `WATCHDOG_USEC` and `WATCHDOG_PID` (through a shell `exec`,
    /// so the pid is booksd's own).
    func start(environment: [String: String] = [:], watchdogUSec: Int? = nil, watchdogPID: String? = nil) {
        var env = environment
        env["NOTIFY_SOCKET"] = notify.path
        startedAt = SD.now()
        if let watchdogUSec {
            env["WATCHDOG_USEC"] = String(watchdogUSec)
            let pid = watchdogPID ?? "$$"
            process = ChildProcess(["/bin/sh", "-c", "WATCHDOG_PID=\(pid) exec \"$0\" --config \"$1\"", SD.booksd, configPath],
                                   environment: env, output: logPath)
        } else {
            process = ChildProcess([SD.booksd, "--config", configPath], environment: env, output: logPath)
        }
    }

    var log: String { SD.read(logPath) }

    /// Waits for `READY=1`; returns seconds since start, or nil.
    func waitReady(within seconds: Double = 10) -> Double? {
        guard let ready = notify.next(within: seconds, containing: "READY=1") else { return nil }
        return ready.time - startedAt
    }

    func booksctl(_ arguments: [String], output: String) -> Int32? {
        let child = ChildProcess([SD.booksctl, "--socket", socketPath] + arguments, output: output)
        guard child.wait(seconds: 10) else { return nil }
        return child.exitStatus
    }
}
