import BooksTestSupport
import CLinux
import Glibc

/// A peer (watcher, subscriber) whose standard output is read line by line, each line stamped
/// with `CLOCK_MONOTONIC` at the `read` that returned it: a shared `ChildProcess` with a piped
/// stdout and a shared `LineReader` on it.
final class LineChild {
    let process: ChildProcess
    let name: String
    private let lines: LineReader

    /// Starts `arguments` (PATH lookup) in its own process group; stderr goes to `stderrPath`
    /// (default /dev/null) so chatty peers cannot block on a full pipe.
    init?(_ arguments: [String], stderrPath: String = "/dev/null") {
        name = arguments.joined(separator: " ")
        do {
            process = try ChildProcess.spawn(arguments, stdout: .pipe, stderr: .appendFile(stderrPath))
        } catch {
            Console.error("spawn \(arguments[0]) failed: \(error)")
            return nil
        }
        lines = LineReader(fd: process.stdoutPipe!)
    }

    deinit { stop() }

    var pid: pid_t { process.pid }

    /// The descriptor of the child's stdout (for `poll` over several children).
    var fd: Int32 { lines.fd }

    /// The lines readable now, each stamped at the `read` that returned it; never waits.
    func availableLines() -> [(line: String, at: UInt64)] {
        lines.fill()
        var ready: [(line: String, at: UInt64)] = []
        while let next = lines.nextStampedLine(until: 0) { ready.append(next) }
        return ready
    }

    /// The next line, waiting until `deadline` (monotonic ns); nil on timeout or end of output.
    func nextLine(until deadline: UInt64) -> (line: String, at: UInt64)? {
        lines.nextStampedLine(until: deadline)
    }

    /// Reads and discards lines until none has arrived for `quiet` ns (or `cap` ns have passed);
    /// returns the discarded lines.
    @discardableResult
    func drain(quiet: UInt64, cap: UInt64 = 5_000_000_000) -> [String] {
        var dropped: [String] = []
        let end = Stopwatch.now() + cap
        while let next = nextLine(until: min(Stopwatch.now() + quiet, end)) { dropped.append(next.line) }
        return dropped
    }

    /// VmRSS of the child in KiB (0 once it has gone).
    var rssKB: Int { ProcStatus.kB("VmRSS", pid: pid) }

    /// SIGTERM to the child's process group, SIGKILL after 3 s, then reaps it.
    func stop() { process.terminate(grace: 3, group: true) }
}

/// Fields of /proc/PID/status and /proc/PID/stat.
enum ProcStatus {
    static func kB(_ field: String, pid: pid_t) -> Int {
        guard let bytes = try? FileBytes.readStream("/proc/\(pid)/status") else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).filter { $0.isNumber }) ?? 0
        }
        return 0
    }

    /// CPU time of all current threads of a process, in milliseconds, from
    /// /proc/PID/task/*/schedstat (nanosecond resolution; utime/stime tick only every 10 ms).
    static func schedMilliseconds(pid: pid_t) -> Double {
        guard let directory = opendir("/proc/\(pid)/task") else { return .nan }
        defer { closedir(directory) }
        var total: UInt64 = 0
        while let entry = readdir(directory) {
            let name = String(cString: books_dirent_name(entry))
            guard name.first?.isNumber == true,
                let bytes = try? FileBytes.readStream("/proc/\(pid)/task/\(name)/schedstat"),
                let first = String(decoding: bytes, as: UTF8.self).split(separator: " ").first,
                let ns = UInt64(first)
            else { continue }
            total += ns
        }
        return Double(total) / 1e6
    }

    /// utime + stime of a process, in milliseconds.
    static func cpuMilliseconds(pid: pid_t) -> Double {
        guard let bytes = try? FileBytes.readStream("/proc/\(pid)/stat") else { return .nan }
        let text = String(decoding: bytes, as: UTF8.self)
        // Fields after the `(comm)`: state is field 3; utime and stime are fields 14 and 15.
        guard let close = text.lastIndex(of: ")") else { return .nan }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
