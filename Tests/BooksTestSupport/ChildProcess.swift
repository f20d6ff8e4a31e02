import Glibc

/// Where a child's standard descriptor comes from or goes to.
public enum ChildIO: Sendable {
    /// The parent's own descriptor.
    case inherit
    /// `/dev/null`.
    case devNull
    /// `fd` of the parent, `dup2`'d into the child (the parent keeps and closes its copy).
    case fd(Int32)
    /// A file opened `O_APPEND | O_CREAT` (several children may share a log).
    case appendFile(String)
    /// A pipe whose parent end is `ChildProcess.stdinPipe` / `stdoutPipe` / `stderrPipe`.
    case pipe
    /// For stderr: the same as stdout (`2>&1`).
    case sameAsStdout
}

/// Environments for children.
public enum ChildEnvironment {
    /// Variables systemd passes to a service; a test's children must not inherit them by accident.
    public static let systemdVariables = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
        "LISTEN_FDNAMES", "INVOCATION_ID", "JOURNAL_STREAM",
    ]

    /// This process's environment, without the variables named in `removing`.
    public static func current(removing: [String] = []) -> [String: String] {
        var env: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") { env[String(text[..<eq])] = String(text[text.index(after: eq)...]) }
            cursor += 1
        }
        for key in removing { env[key] = nil }
        return env
    }

    /// Sanitizer settings a child keeps even when a test gives it a complete environment, so a
    /// sanitized booksd or booksctl writes its reports where the test run collects them
    /// (scripts/test.sh's `tsan` phase sets `TSAN_OPTIONS=log_path=…`).
    public static let sanitizerVariables = ["TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS"]

    /// `environment` plus this process's sanitizer settings that it does not set itself.
    public static func withSanitizerSettings(_ environment: [String: String]) -> [String: String] {
        var env = environment
        for key in sanitizerVariables where env[key] == nil {
            if let value = getenv(key) { env[key] = String(cString: value) }
        }
        return env
    }
}

/// A child process started with `posix_spawnp`, with its signal mask cleared and the usual signals
/// at their defaults (a test thread's blocked signals must not leak into it), by default in its own
/// process group (so a kill also reaches its children). One owner; not thread-safe.
public final class ChildProcess: @unchecked Sendable {
    /// How the child ended.
    public enum Termination: Sendable, Hashable {
        /// `exit(code)`.
        case exited(Int32)
        /// Killed by a signal.
        case signalled(Int32)

        /// The shell convention: the exit code, or 128 + the signal number.
        public var status: Int32 {
            switch self {
            case .exited(let code): return code
            case .signalled(let signal): return 128 + signal
            }
        }
    }

    /// The child's process id.
    public let pid: pid_t
    /// The arguments it was started with.
    public let argv: [String]
    /// Whether it leads its own process group.
    public let hasOwnProcessGroup: Bool
    /// The parent end of a `.pipe` stdin (write to it; `closeStdin()` to send EOF), else nil.
    public private(set) var stdinPipe: Int32?
    /// The parent end of a `.pipe` stdout (non-blocking), else nil. Closed when the object goes.
    public let stdoutPipe: Int32?
    /// The parent end of a `.pipe` stderr (non-blocking), else nil. Closed when the object goes.
    public let stderrPipe: Int32?
    /// How it ended, once reaped (`poll`, `wait…`, `terminate`, `kill`).
    public private(set) var termination: Termination?

    private init(pid: pid_t, argv: [String], group: Bool, pipes: [Int32?]) {
        self.pid = pid
        self.argv = argv
        hasOwnProcessGroup = group
        stdinPipe = pipes[0]
        stdoutPipe = pipes[1]
        stderrPipe = pipes[2]
    }

    deinit {
        if termination == nil { kill() }
        if let stdinPipe { close(stdinPipe) }
        if let stdoutPipe { close(stdoutPipe) }
        if let stderrPipe { close(stderrPipe) }
    }

    /// Starts `argv` (`argv[0]` looked up in `PATH`).
    /// - Parameters:
    ///   - environment: the complete environment (plus this process's sanitizer settings, see
    ///     `ChildEnvironment.sanitizerVariables`); nil inherits this process's.
    ///   - newProcessGroup: start it as the leader of a new process group (default true).
    public static func spawn(
        _ argv: [String], environment: [String: String]? = nil, stdin: ChildIO = .devNull,
        stdout: ChildIO = .devNull, stderr: ChildIO = .devNull,
        newProcessGroup: Bool = true
    ) throws -> ChildProcess {
        precondition(!argv.isEmpty, "no program to spawn")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32?] = [nil, nil, nil]
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        func closeParentEnds() { for case let fd? in parentEnds { close(fd) } }
        for (target, io) in [(Int32(0), stdin), (Int32(1), stdout), (Int32(2), stderr)] {
            switch io {
            case .inherit:
                break
            case .devNull:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .fd(let fd):
                posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .appendFile(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .sameAsStdout:
                posix_spawn_file_actions_adddup2(&actions, 1, target)
            case .pipe:
                let fds: (read: Int32, write: Int32)
                do { fds = try makePipe() } catch {
                    closeParentEnds()
                    throw error
                }
                let (childEnd, parentEnd) = target == 0 ? (fds.read, fds.write) : (fds.write, fds.read)
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                childEnds.append(childEnd)
                parentEnds[Int(target)] = parentEnd
                if target != 0 { _ = fcntl(parentEnd, F_SETFL, fcntl(parentEnd, F_GETFL) | O_NONBLOCK) }
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM] {
            sigaddset(&defaults, sig)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let env = environment.map(ChildEnvironment.withSanitizerSettings) ?? ChildEnvironment.current()
        let cEnv: [UnsafeMutablePointer<CChar>?] = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for arg in cArgs { free(arg) }
            for entry in cEnv { free(entry) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
        guard rc == 0 else {
            closeParentEnds()
            throw TestSupportError("posix_spawnp \(argv[0]) failed: \(TestFiles.errorText(rc))")
        }
        return ChildProcess(pid: pid, argv: argv, group: newProcessGroup, pipes: parentEnds)
    }

    /// The exit code or 128 + signal once reaped, else nil.
    public var terminationStatus: Int32? { termination?.status }
    /// The exit code when it exited normally.
    public var exitCode: Int32? { if case .exited(let code) = termination { return code } else { return nil } }
    /// The signal that killed it, if one did.
    public var exitSignal: Int32? { if case .signalled(let sig) = termination { return sig } else { return nil } }
    /// True until the child has been seen to exit (reaps it when it has).
    public var isRunning: Bool { poll() == nil }

    /// Reaps the child if it has exited (without waiting); returns `terminationStatus`.
    @discardableResult
    public func poll() -> Int32? {
        if let termination { return termination.status }
        var raw: Int32 = 0
        let r = waitpid(pid, &raw, WNOHANG)
        if r == pid {
            let signal = raw & 0x7f
            termination = signal == 0 ? .exited((raw >> 8) & 0xff) : .signalled(signal)
        } else if r < 0 && errno == ECHILD {
            termination = .exited(-1)
        }
        return termination?.status
    }

    /// Waits up to `timeout` seconds (suspending between polls); the status, or nil when still running.
    @discardableResult
    public func wait(timeout: Double) async -> Int32? {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            if let status = poll() { return status }
            if MonotonicClock.seconds() >= deadline { return nil }
            await MonotonicClock.pause(seconds: 0.01)
        }
    }

    /// Waits up to `timeout` seconds, blocking this thread (nil timeout: until it exits); the
    /// status, or nil when still running.
    @discardableResult
    public func waitBlocking(timeout: Double?) -> Int32? {
        let deadline = timeout.map { MonotonicClock.seconds() + $0 }
        while true {
            if let status = poll() { return status }
            if let deadline, MonotonicClock.seconds() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Sends `sig` to the child (or its whole process group) unless it has been reaped.
    public func signal(_ sig: Int32, group: Bool = false) {
        guard termination == nil else { return }
        Glibc.kill(group && hasOwnProcessGroup ? -pid : pid, sig)
    }

    /// SIGTERM to the child (or, with `group`, its whole process group), SIGKILL (to the group)
    /// after `grace` seconds; reaps it and returns its status. The group is killed in any case, so
    /// no grandchild outlives the test.
    @discardableResult
    public func terminate(grace: Double = 5, group: Bool = false) -> Int32 {
        if let status = poll() {
            killGroup()
            return status
        }
        signal(SIGTERM, group: group)
        if let status = waitBlocking(timeout: grace) {
            killGroup()
            return status
        }
        return kill()
    }

    /// SIGKILL to the child (and its group) and reaps it; returns its status.
    @discardableResult
    public func kill() -> Int32 {
        if let status = poll() {
            killGroup()
            return status
        }
        Glibc.kill(pid, SIGKILL)
        killGroup()
        return waitBlocking(timeout: 10) ?? -1
    }

    /// Closes the write end of a `.pipe` stdin (the child sees end of input).
    public func closeStdin() {
        if let fd = stdinPipe {
            close(fd)
            stdinPipe = nil
        }
    }

    private func killGroup() {
        if hasOwnProcessGroup { Glibc.kill(-pid, SIGKILL) }
    }
}

@_silgen_name("pipe2")
private func cPipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

/// A pipe with both ends close-on-exec (a `dup2` in the child clears the flag on the target).
public func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    guard cPipe2(&fds, O_CLOEXEC) == 0 else { throw TestSupportError("pipe2: \(TestFiles.errorText())") }
    return (fds[0], fds[1])
}
