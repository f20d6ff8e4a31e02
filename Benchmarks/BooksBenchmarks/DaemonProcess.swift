import Glibc

/// A private `booksd` on a generated file: started, timed to readiness, measured, stopped.
final class DaemonProcess {
    let child: LineChild
    let socketPath: String
    /// Milliseconds from spawn until the socket accepted a connection and answered `hello`.
    private(set) var readyMS: Double = .nan

    /// Starts `booksd --file FILE --socket SOCK --set …` and waits until it answers `hello`.
    init?(binDirectory: String, file: String, socket: String, settings: [String] = [], logPath: String) {
        unlink(socket)
        var arguments = ["\(binDirectory)/booksd", "--file", file, "--socket", socket]
        for setting in settings { arguments += ["--set", setting] }
        let start = Stopwatch.now()
        guard let child = LineChild(arguments, stderrPath: logPath) else { return nil }
        self.child = child
        self.socketPath = socket
        let deadline = start + 120_000_000_000
        while Stopwatch.now() < deadline {
            if let connection = RawSocket(path: socket), connection.hello() != nil {
                readyMS = Double(Stopwatch.now() - start) / 1e6
                return
            }
            var status: Int32 = 0
            if waitpid(child.pid, &status, WNOHANG) == child.pid {
                Console.error("booksd exited during start-up (status \(status)); see \(logPath)")
                return nil
            }
            usleep(1000)
        }
        Console.error("booksd not ready after 120 s; see \(logPath)")
        return nil
    }

    var pid: pid_t { child.pid }
    var rssKB: Int { ProcStatus.kB("VmRSS", pid: pid) }
    var cpuMS: Double { ProcStatus.cpuMilliseconds(pid: pid) }
    var schedMS: Double { ProcStatus.schedMilliseconds(pid: pid) }

    func stop() { child.stop() }
}
