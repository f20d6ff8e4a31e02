import CLinux
import Glibc

/// A child process whose standard output is read line by line through a pipe, each line stamped
/// with `CLOCK_MONOTONIC` in this process at the `read` that returned it.
final class LineChild {
    let pid: pid_t
    let name: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var pending: [(line: String, at: UInt64)] = []
    private(set) var exited = false

    /// Starts `arguments` (PATH lookup) with `environment` added; stderr goes to `stderrPath`
    /// (default /dev/null) so chatty peers cannot block on a full pipe.
    init?(_ arguments: [String], environment: [String: String] = [:], stderrPath: String = "/dev/null") {
        name = arguments.joined(separator: " ")
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group, so `stop()` also ends grandchildren (e.g. a shell's children).
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var env: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let key = text.split(separator: "=", maxSplits: 1).first, environment[String(key)] == nil { env.append(text) }
            p += 1
        }
        env += environment.map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = env.map { strdup($0) } + [nil]
        defer { for q in argv { free(q) }; for q in envp { free(q) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, &envp)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            Console.error("spawn \(arguments[0]) failed: \(String(cString: strerror(rc)))")
            return nil
        }
        pid = child
        fd = fds[0]
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    deinit { stop() }

    /// The next line, waiting until `deadline` (monotonic ns); nil on timeout or end of output.
    func nextLine(until deadline: UInt64) -> (line: String, at: UInt64)? {
        while pending.isEmpty {
            let now = Stopwatch.now()
            if exited || now >= deadline { return nil }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let timeout = Int32(min((deadline - now) / 1_000_000 + 1, 1000))
            let ready = poll(&pfd, 1, timeout)
            if ready < 0 && errno != EINTR { return nil }
            if ready > 0 { fill() }
        }
        return pending.removeFirst()
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

    private func fill() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            let at = Stopwatch.now()
            if n < 0 { if errno == EINTR { continue }; return }
            if n == 0 { exited = true; return }
            buffer.append(contentsOf: chunk[0..<n])
            while let newline = buffer.firstIndex(of: 0x0A) {
                pending.append((String(decoding: buffer[..<newline], as: UTF8.self), at))
                buffer.removeSubrange(...newline)
            }
        }
    }

    /// VmRSS of the child in KiB (0 once it has gone).
    var rssKB: Int { ProcStatus.kB("VmRSS", pid: pid) }

    private var stopped = false

    /// SIGTERM to the child's process group, SIGKILL after 3 s, then reaps it.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(-pid, SIGTERM)
        var status: Int32 = 0
        let end = Stopwatch.now() + 3_000_000_000
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Stopwatch.now() > end { kill(-pid, SIGKILL); waitpid(pid, &status, 0); break }
            usleep(2000)
        }
        close(fd)
    }
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
                  let ns = UInt64(first) else { continue }
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
