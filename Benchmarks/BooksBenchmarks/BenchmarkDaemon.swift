import BooksTestSupport
import Glibc

/// The benchmarks' view of the shared `DaemonProcess`: a private `booksd` on a generated file,
/// timed to readiness, measured, stopped.
extension DaemonProcess {
    /// Starts `booksd --file FILE --socket SOCK --set …` from `binDirectory` and waits (up to
    /// 120 s) until it answers `hello`; nil, reported on stderr, when it does not. Unless
    /// `keepHistory`, the saved history beside FILE (`.NAME.history`, from an earlier run on an
    /// earlier file) is removed first: a benchmark measures a daemon on the file it generated, not
    /// one resuming a history and diffing a regenerated file against it. `arguments` come after
    /// the others (e.g. `--replica …`); `extraEnvironment` is added to this process's environment
    /// for it.
    static func benchmark(
        binDirectory: String, file: String, socket: String, settings: [String] = [],
        logPath: String, keepHistory: Bool = false, arguments: [String] = [],
        extraEnvironment: [String: String] = [:]
    ) -> DaemonProcess? {
        if !keepHistory {
            let slash = file.lastIndex(of: "/")
            let directory = slash.map { String(file[..<$0]) } ?? "."
            let name = slash.map { String(file[file.index(after: $0)...]) } ?? file
            TestFiles.removeTree(directory + "/." + name + ".history")
        }
        var options = DaemonOptions(file: file, socket: socket, logPath: logPath)
        options.executable = "\(binDirectory)/booksd"
        options.settings = settings
        options.extraArguments = arguments
        options.environment = ChildEnvironment.current().merging(extraEnvironment) { $1 }
        do {
            let daemon = try DaemonProcess(options, waitReady: false)
            try daemon.waitUntilReady(timeout: 120, interval: 0.001)
            return daemon
        } catch {
            Console.error("booksd did not start: \(error)\nsee \(logPath)")
            return nil
        }
    }

    /// Milliseconds from spawn until the socket accepted a connection and answered `hello`.
    var readyMS: Double { (readySeconds ?? .nan) * 1000 }
    var socketPath: String { socket }
    var rssKB: Int { ProcStatus.kB("VmRSS", pid: pid) }
    var cpuMS: Double { ProcStatus.cpuMilliseconds(pid: pid) }
    var schedMS: Double { ProcStatus.schedMilliseconds(pid: pid) }
}

/// The benchmarks' use of the shared `LineClient`.
extension LineClient {
    /// Connects to `path`; nil when nothing listens.
    static func connectIfListening(_ path: String) -> LineClient? { try? LineClient(path: path) }

    /// `hello`; (epoch, seq) from an `ok` reply, nil on failure.
    func helloPoint(client: String = "BooksBenchmarks") -> (epoch: String, seq: UInt64)? {
        guard let reply = hello(client: client, timeout: 10), reply.contains("\"ok\":true"),
            let epoch = JSONLine.string("epoch", in: reply), let seq = JSONLine.integer("seq", in: reply)
        else { return nil }
        return (epoch, seq)
    }

    /// The `subscribe` request line resuming at (epoch, seq): no snapshot, changes only.
    static func subscribeLine(id: String, epoch: String, seq: UInt64) -> String {
        """
        {"id":\(JSONLine.quoted(id)),"op":"subscribe",\
        "resume":{"epoch":\(JSONLine.quoted(epoch)),"seq":\(seq)}}
        """
    }
}

/// Programs run to completion (the Python peers, `sed`, this executable in a child mode).
enum PeerRun {
    /// Runs `arguments` and captures stdout (stderr is inherited); status -1 when it cannot start.
    static func run(_ arguments: [String]) -> ChildResult {
        do {
            return try ChildProcess.runBlocking(arguments, stderr: .inherit, newProcessGroup: false)
        } catch {
            Console.error("spawn \(arguments[0]) failed: \(error)")
            return ChildResult(status: -1, output: "")
        }
    }

    /// `key=value` lines of a child's output, as numbers.
    static func values(_ output: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { result[String(parts[0])] = value }
        }
        return result
    }
}
