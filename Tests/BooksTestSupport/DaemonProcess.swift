import Glibc

/// How to start a `booksd` under test.
public struct DaemonOptions: Sendable {
    /// The book file (`--file`); nil leaves it to the configuration file.
    public var file: String?
    /// The socket path (`--socket`); nil leaves it to the configuration file.
    public var socket: String?
    /// A configuration file (`--config`).
    public var configFile: String?
    /// `key=value` settings, each passed as `--set key=value`.
    public var settings: [String] = []
    /// `--log-level`; nil: `BOOKSYNC_TEST_LOG_LEVEL` when set, else the daemon's default.
    public var logLevel: String?
    /// More arguments, after the others.
    public var extraArguments: [String] = []
    /// A command the daemon is run through (e.g. `setpriv …`, or `sh -c '… exec "$@"' sh`).
    public var wrapper: [String] = []
    /// The complete environment; nil: this process's, minus the systemd variables.
    public var environment: [String: String]?
    /// Where stdout and stderr are appended; nil: `/dev/null`.
    public var logPath: String?
    /// The daemon executable (default: the built `booksd`).
    public var executable: String = BuildProducts.booksd

    /// Options for a daemon on `file` serving `socket`, logging to `logPath`.
    public init(file: String? = nil, socket: String? = nil, logPath: String? = nil) {
        self.file = file
        self.socket = socket
        self.logPath = logPath
    }

    /// The daemon's command line (wrapper included).
    public var arguments: [String] {
        var argv = wrapper + [executable]
        if let file { argv += ["--file", file] }
        if let socket { argv += ["--socket", socket] }
        if let configFile { argv += ["--config", configFile] }
        for setting in settings { argv += ["--set", setting] }
        if let level = logLevel ?? getenv("BOOKSYNC_TEST_LOG_LEVEL").map({ String(cString: $0) }) {
            argv += ["--log-level", level]
        }
        return argv + extraArguments
    }
}

/// A `booksd` child process: started on a file with options, waited for until its socket accepts
/// a connection and answers `hello`, stopped with SIGTERM (SIGKILL after a grace period) or
/// killed. It is killed when the object goes away while it still runs.
public final class DaemonProcess: @unchecked Sendable {
    /// How it was started.
    public let options: DaemonOptions
    /// The child process.
    public let process: ChildProcess
    /// `CLOCK_MONOTONIC` seconds just before the spawn.
    public let startedAt: Double
    /// Seconds from the spawn until it was first seen ready, once it was.
    public private(set) var readySeconds: Double?

    /// Starts the daemon (the stale socket file, if any, is removed first) and, when
    /// `waitReady`, waits (blocking) up to `readyTimeout` seconds for readiness.
    public init(_ options: DaemonOptions, waitReady: Bool = true, readyTimeout: Double = 20) throws {
        self.options = options
        if let socket = options.socket { unlink(socket) }
        startedAt = MonotonicClock.seconds()
        process = try ChildProcess.spawn(
            options.arguments,
            environment: options.environment ?? ChildEnvironment.current(removing: ChildEnvironment.systemdVariables),
            stdout: options.logPath.map { .appendFile($0) } ?? .devNull,
            stderr: options.logPath == nil ? .devNull : .sameAsStdout)
        if waitReady { try waitUntilReady(timeout: readyTimeout) }
    }

    /// Starts the daemon and waits, suspending instead of blocking, up to `readyTimeout` seconds.
    public static func start(_ options: DaemonOptions, readyTimeout: Double = 20) async throws -> DaemonProcess {
        let daemon = try DaemonProcess(options, waitReady: false)
        try await daemon.waitUntilReady(timeout: readyTimeout)
        return daemon
    }

    deinit { if process.termination == nil { process.kill() } }

    /// The daemon's process id.
    public var pid: pid_t { process.pid }

    /// The socket path (from the options).
    public var socket: String { options.socket ?? "" }

    /// True until it has been seen to exit.
    public var isRunning: Bool { process.isRunning }

    /// Whether its socket accepts a connection that gets an `ok` reply to `hello` now.
    public func answersHello(timeout: Double = 5) -> Bool {
        guard let socket = options.socket, let client = try? LineClient(path: socket) else { return false }
        defer { client.close() }
        return client.hello(client: "readiness-probe", timeout: timeout)?.contains(#""ok":true"#) == true
    }

    /// Waits (blocking) until it answers `hello`, polling every `interval` seconds; throws, with
    /// the end of its log, when it exits first or is not ready within `timeout` seconds.
    public func waitUntilReady(timeout: Double = 20, interval: Double = 0.005) throws {
        let deadline = MonotonicClock.seconds() + timeout
        while MonotonicClock.seconds() < deadline {
            if try readyNow() { return }
            MonotonicClock.sleep(seconds: interval)
        }
        if try readyNow() { return }  // once more at the deadline: this thread may have been descheduled
        throw TestSupportError("booksd not ready after \(timeout) s\n\(logTail())")
    }

    /// `waitUntilReady` suspending instead of blocking between polls; time the test process was
    /// not scheduled (a pause that resumed late) does not count against `timeout` (`WaitDeadline`).
    public func waitUntilReady(timeout: Double = 20, interval: Double = 0.02) async throws {
        var deadline = WaitDeadline(timeout: timeout)
        while !deadline.hasPassed {
            if try readyNow() { return }
            await deadline.pause(seconds: interval)
        }
        if try readyNow() { return }
        throw TestSupportError(
            "booksd not ready after \(timeout) s (and \(deadline.starvedSeconds) s the tests were not scheduled)"
                + "\n\(logTail())")
    }

    private func readyNow() throws -> Bool {
        if let status = process.poll() {
            throw TestSupportError("booksd exited with status \(status) before it was ready\n\(logTail())")
        }
        guard answersHello() else { return false }
        readySeconds = MonotonicClock.seconds() - startedAt
        return true
    }

    /// SIGTERM, SIGKILL after `grace` seconds; reaps it and returns the exit code (or 128 + signal).
    @discardableResult
    public func stop(grace: Double = 10) -> Int32 { process.terminate(grace: grace) }

    /// SIGKILL (a crash) and reaps it; returns its status.
    @discardableResult
    public func kill() -> Int32 { process.kill() }

    /// Sends `sig` (e.g. SIGHUP, SIGSTOP).
    public func signal(_ sig: Int32) { process.signal(sig) }

    /// Everything in its log so far ("" without a log).
    public var logText: String { options.logPath.flatMap { TestFiles.readText($0) } ?? "" }

    /// The last `lines` lines of its log, headed with the log's path.
    public func logTail(_ lines: Int = 60) -> String {
        let all = logText.split(separator: "\n", omittingEmptySubsequences: false)
        return "--- booksd log (\(options.logPath ?? "none"), last \(lines) lines) ---\n"
            + all.suffix(lines).joined(separator: "\n")
    }
}
