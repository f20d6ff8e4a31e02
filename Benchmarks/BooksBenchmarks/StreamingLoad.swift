import BooksTestSupport
import Glibc

extension StreamingBenchmark {
    /// booksd's idle resident memory, its peak while 10 `subscribe --json --initial` receive and
    /// print every book and one `list --json` runs, and its resident memory 1 s after they end.
    /// The subscribers' output is read from pipes and only its lines are counted.
    func measureLoad(_ daemon: DaemonProcess, rows: Int, fileMB: Double) -> LoadRow {
        var result = LoadRow(rows: rows, fileMB: fileMB)
        usleep(500_000)
        result.idleMB = Double(daemon.rssKB) / 1024
        result.loadPeakMB = Double(ProcStatus.kB("VmHWM", pid: daemon.pid)) / 1024
        // Resets VmHWM to the current resident size (Linux `clear_refs` 5), so that the peak
        // below is the serving peak, not the load's.
        if !Self.resetPeak(pid: daemon.pid) { Console.error("  could not reset VmHWM; the peak includes loading") }
        let start = Stopwatch.now()
        var subscribers: [ChildProcess] = []
        for _ in 0..<10 {
            if let child = try? ChildProcess.spawn(
                [
                    options.binDirectory + "/booksctl", "--socket", daemon.socketPath, "subscribe", "--json",
                    "--initial",
                ],
                stdout: .pipe, stderr: .devNull)
            {
                subscribers.append(child)
            }
        }
        let list = try? ChildProcess.spawn(
            [options.binDirectory + "/booksctl", "--socket", daemon.socketPath, "list", "--json"], stdout: .devNull,
            stderr: .devNull, newProcessGroup: false)
        var lines = Array(repeating: 0, count: subscribers.count)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let deadline = start + 600_000_000_000
        while lines.contains(where: { $0 < rows }) && Stopwatch.now() < deadline {
            var fds = subscribers.map { pollfd(fd: $0.stdoutPipe ?? -1, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for (k, fd) in fds.enumerated() where fd.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(fd.fd, $0.baseAddress, $0.count) }
                if n > 0 { lines[k] += buffer[0..<n].reduce(0) { $1 == 10 ? $0 + 1 : $0 } }
            }
        }
        result.complete = !lines.contains(where: { $0 < rows })
        _ = list?.waitBlocking(timeout: 60)
        result.servedSeconds = Double(Stopwatch.now() - start) / 1e9
        result.peakMB = Double(ProcStatus.kB("VmHWM", pid: daemon.pid)) / 1024
        result.initialSubscriberHWMMB =
            Double(subscribers.map { ProcStatus.kB("VmHWM", pid: $0.pid) }.max() ?? 0) / 1024
        for child in subscribers { child.terminate(grace: 3, group: true) }
        usleep(1_000_000)
        result.afterMB = Double(daemon.rssKB) / 1024
        if !result.complete { Console.error("  the --initial subscribers did not print every book within 600 s") }
        return result
    }

    /// Resets a process's VmHWM to its current resident size; false when not permitted.
    static func resetPeak(pid: pid_t) -> Bool {
        let fd = open("/proc/\(pid)/clear_refs", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Glibc.write(fd, "5", 1) == 1
    }

    /// The size of the file at `path` in bytes (0 when it cannot be read).
    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
