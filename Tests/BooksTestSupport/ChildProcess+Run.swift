import Glibc

/// What a program run to completion by `ChildProcess.run` / `runBlocking` did.
public struct ChildResult: Sendable, CustomStringConvertible {
    /// The exit code, 128 + signal, or -2 when it timed out (and was killed).
    public var status: Int32
    /// Its standard output (with standard error interleaved when merged).
    public var output: String
    /// Whether it was killed because it ran past the timeout.
    public var timedOut: Bool { status == -2 }
    /// True when it exited with status 0.
    public var succeeded: Bool { status == 0 }
    /// Status and output, for failure messages.
    public var description: String { "status \(status), output:\n\(output)" }

    /// A result (for tests of code that consumes results).
    public init(status: Int32, output: String) {
        self.status = status
        self.output = output
    }
}

extension ChildProcess {
    /// Runs `argv` to completion and captures its standard output, suspending (not blocking a
    /// thread) while it runs. After `timeout` seconds the whole process group is killed and the
    /// status is -2 (the output then ends with a `[timed out after … s]` line); time this test
    /// process was not scheduled (a pause that resumed late, `WaitDeadline`) does not count: its
    /// reader did not drain the pipe then, so the program was held up by the test, not slow.
    /// - Parameters:
    ///   - input: bytes for its stdin (at most a pipe's capacity, 64 KiB); nil: /dev/null.
    ///   - stderr: `.sameAsStdout` interleaves it into `output`.
    public static func run(
        _ argv: [String], environment: [String: String]? = nil, input: [UInt8]? = nil,
        stderr: ChildIO = .sameAsStdout, timeout: Double = 60,
        newProcessGroup: Bool = true
    ) async throws -> ChildResult {
        var capture = try OutputCapture(
            argv, environment: environment, input: input, stderr: stderr,
            timeout: timeout, newProcessGroup: newProcessGroup)
        while !capture.step(pollMilliseconds: 0) { await capture.deadline.pause(seconds: 0.01) }
        return capture.result
    }

    /// `run` for synchronous code: the same, blocking this thread while the program runs.
    public static func runBlocking(
        _ argv: [String], environment: [String: String]? = nil, input: [UInt8]? = nil,
        stderr: ChildIO = .sameAsStdout, timeout: Double = 3600,
        newProcessGroup: Bool = true
    ) throws -> ChildResult {
        var capture = try OutputCapture(
            argv, environment: environment, input: input, stderr: stderr,
            timeout: timeout, newProcessGroup: newProcessGroup)
        while !capture.step(pollMilliseconds: 20) {}
        return capture.result
    }
}

/// The state of one captured run; `step` does one round of reading and checking.
private struct OutputCapture {
    let child: ChildProcess
    let fd: Int32
    let timeout: Double
    var deadline: WaitDeadline
    var output: [UInt8] = []
    var eof = false
    var drainUntil: Double?
    var result = ChildResult(status: -1, output: "")

    init(
        _ argv: [String], environment: [String: String]?, input: [UInt8]?, stderr: ChildIO, timeout: Double,
        newProcessGroup: Bool
    ) throws {
        child = try ChildProcess.spawn(
            argv, environment: environment, stdin: input == nil ? .devNull : .pipe,
            stdout: .pipe, stderr: stderr, newProcessGroup: newProcessGroup)
        if let input, let pipe = child.stdinPipe {
            _ = fcntl(pipe, F_SETFL, fcntl(pipe, F_GETFL) | O_NONBLOCK)
            _ = input.withUnsafeBytes { write(pipe, $0.baseAddress, $0.count) }
            child.closeStdin()
        }
        fd = child.stdoutPipe!
        self.timeout = timeout
        deadline = WaitDeadline(timeout: timeout)
    }

    /// Reads what is there (waiting up to `pollMilliseconds`); true when the run is over.
    mutating func step(pollMilliseconds: Int32) -> Bool {
        if !eof {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&pfd, 1, pollMilliseconds) > 0 { readAvailable() }
        } else if pollMilliseconds > 0 {
            usleep(UInt32(pollMilliseconds) * 1000)
        }
        if let status = child.poll() {
            // Drain what is left; a background grandchild may keep the pipe open, so do not wait
            // for end of file longer than 0.2 s.
            let until = drainUntil ?? (MonotonicClock.seconds() + 0.2)
            drainUntil = until
            if eof || MonotonicClock.seconds() >= until {
                result = ChildResult(status: status, output: String(decoding: output, as: UTF8.self))
                return true
            }
            return false
        }
        if deadline.hasPassed {
            child.signal(SIGKILL, group: true)
            child.signal(SIGKILL)
            _ = child.waitBlocking(timeout: 5)
            result = ChildResult(
                status: -2, output: String(decoding: output, as: UTF8.self) + "\n[timed out after \(timeout) s]")
            return true
        }
        return false
    }

    private mutating func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                output += chunk[0..<n]
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n == 0 || (n < 0 && errno != EAGAIN) { eof = true }
            return
        }
    }
}
