import Glibc

/// Seconds on the monotonic clock.
func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Sleeps without blocking a thread of the cooperative pool (other tests keep running).
func pause(_ seconds: Double) async {
    guard seconds > 0 else { return }
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How a child's standard descriptors are set up.
enum ChildIO {
    case devNull
    case fd(Int32)                 // dup2'd into the child
    case appendFile(String)        // opened O_APPEND|O_CREAT
}

/// A child started with posix_spawnp in its own process group. Not thread-safe; one owner.
final class SpawnedProcess: @unchecked Sendable {
    let pid: pid_t
    let argv: [String]
    private(set) var terminationStatus: Int32?   // exit code, or 128 + signal

    private init(pid: pid_t, argv: [String]) { self.pid = pid; self.argv = argv }

    static func spawn(_ argv: [String], environment: [String: String], stdin: ChildIO = .devNull,
                      stdout: ChildIO = .devNull, stderr: ChildIO = .devNull) throws -> SpawnedProcess {
        precondition(!argv.isEmpty)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, io) in [(Int32(0), stdin), (Int32(1), stdout), (Int32(2), stderr)] {
            switch io {
            case .devNull:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .fd(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .appendFile(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            }
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attr, &mask)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { cArgs.forEach { free($0) }; cEnv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attr, cArgs, cEnv)
        guard rc == 0 else { throw HarnessError("posix_spawnp \(argv[0]) failed: \(String(cString: strerror(rc)))") }
        return SpawnedProcess(pid: pid, argv: argv)
    }

    /// Reaps the child if it has exited; returns its status.
    @discardableResult
    func poll() -> Int32? {
        if let status = terminationStatus { return status }
        var raw: Int32 = 0
        let r = waitpid(pid, &raw, WNOHANG)
        if r == pid {
            let signal = raw & 0x7f
            terminationStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        } else if r < 0 && errno == ECHILD {
            terminationStatus = -1
        }
        return terminationStatus
    }

    /// Waits up to `timeout` seconds; nil when still running.
    func wait(timeout: Double) async -> Int32? {
        let deadline = monotonicNow() + timeout
        while true {
            if let status = poll() { return status }
            if monotonicNow() >= deadline { return nil }
            await pause(0.01)
        }
    }

    /// Blocking variant (for clean-up paths that cannot await).
    func waitBlocking(timeout: Double) -> Int32? {
        let deadline = monotonicNow() + timeout
        while true {
            if let status = poll() { return status }
            if monotonicNow() >= deadline { return nil }
            usleep(10_000)
        }
    }

    func signal(_ sig: Int32, group: Bool = false) {
        guard terminationStatus == nil else { return }
        kill(group ? -pid : pid, sig)
    }

    /// SIGTERM, then SIGKILL (to the whole process group) after `grace` seconds.
    @discardableResult
    func terminate(grace: Double = 5) -> Int32 {
        if let status = poll() { kill(-pid, SIGKILL); return status }
        signal(SIGTERM)
        if let status = waitBlocking(timeout: grace) { kill(-pid, SIGKILL); return status }
        kill(-pid, SIGKILL)
        return waitBlocking(timeout: 5) ?? -1
    }
}

@_silgen_name("pipe2")
private func c_pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// A pipe whose both ends are close-on-exec (dup2 in the child clears the flag on the target).
func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard c_pipe2(&fds, O_CLOEXEC) == 0 else { throw HarnessError("pipe2 failed") }
    return (fds[0], fds[1])
}

/// Reads whatever is available on `fd` within `timeout` seconds (polling without blocking a
/// thread). Returns [] when nothing came, nil on EOF.
func readAvailable(_ fd: Int32, timeout: Double) async -> [UInt8]? {
    let deadline = monotonicNow() + timeout
    while true {
        if let bytes = readNow(fd) { if !bytes.isEmpty { return bytes } } else { return nil }
        if monotonicNow() >= deadline { return [] }
        await pause(0.01)
    }
}

/// One non-blocking read: [] when nothing is ready, nil on EOF.
func readNow(_ fd: Int32) -> [UInt8]? {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let r = Glibc.poll(&pfd, 1, 0)
    if r <= 0 { return [] }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n > 0 { return Array(buffer[0..<n]) }
    if n < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
    return nil
}
