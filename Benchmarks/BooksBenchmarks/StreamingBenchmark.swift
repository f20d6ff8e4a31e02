import BooksTestSupport
import Glibc

/// `BooksBenchmarks stream`: what a subscriber and a full `list` cost, release build,
/// at 10k, 100k and 1M rows (`--quick`: 1k and 10k), with the Python peer in the same run:
/// - `booksctl subscribe --json` (no mirror): exec → subscribed (the daemon counts it; polled
///   every 1 ms), its peak resident memory, and the time from a client write to its printed line;
/// - `booksctl list --json > /dev/null` of every book: wall time (median of 3) beside the Python
///   peer's read + parse of the same file (`parse_peer.py --runs 3`);
/// - at the largest size: booksd idle, its peak (VmHWM) while serving 10 concurrent
///   `subscribe --initial` and one full `list`, and its resident memory once they are gone; the
///   whole cost of a subscriber (daemon + subscriber) beside the Python peer's whole process.
struct StreamingBenchmark {
    static let heading = "## Live: subscriber and list cost"

    let options: LiveOptions
    var sizes: [Int] { options.onlySizes ?? (options.quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000]) }

    struct SizeRow {
        var rows = 0
        var fileMB = 0.0
        var readyMS: [Double] = []
        var subscriberHWMMB: [Double] = []
        /// The subscriber's anonymous resident memory (RssAnon) at the same moment: VmHWM also
        /// counts the shared libraries' file pages it touched, the same at any file size.
        var subscriberAnonMB: [Double] = []
        var changeMS: [Double] = []
        var listMS: [Double] = []
        var listHWMMB = 0.0
        var pythonParseMS = Double.nan
        var pythonHWMMB = Double.nan
        var daemonIdleMB = 0.0
    }

    struct LoadRow {
        var rows = 0
        var fileMB = 0.0
        var idleMB = 0.0
        var loadPeakMB = 0.0
        var peakMB = 0.0
        var afterMB = 0.0
        var servedSeconds = 0.0
        var initialSubscriberHWMMB = 0.0
        var complete = true
    }

    func run() {
        let machine = MachineInfo.current()
        var rows: [SizeRow] = []
        var load: LoadRow?
        for size in sizes {
            let directory = "\(options.workDirectory)/live/stream-\(size)"
            FileBytes.makeDirectory(directory)
            let file = directory + "/books.txt"
            guard (try? LiveBookFile(path: file, rows: size)) != nil else { exit(1) }
            guard
                let daemon = DaemonProcess.benchmark(
                    binDirectory: options.binDirectory, file: file, socket: directory + "/booksd.sock",
                    logPath: directory + "/booksd.log")
            else { exit(1) }
            var row = SizeRow(rows: size, fileMB: Double(Self.fileSize(file)) / 1_048_576)
            row.daemonIdleMB = Double(daemon.rssKB) / 1024
            Console.error("• stream: \(CoreReport.rows(size)) rows: subscribe --json readiness")
            for run in 0..<5 { measureSubscriber(daemon, run: run, into: &row) }
            Console.error("• stream: \(CoreReport.rows(size)) rows: list --json")
            for _ in 0..<3 { measureList(daemon, into: &row) }
            let python = PeerRun.values(
                PeerRun.run([options.python, "\(options.peersDirectory)/parse_peer.py", file, "--runs", "3"]).output)
            row.pythonParseMS = python["read_parse_ms_median"] ?? .nan
            let pythonRSS = PeerRun.values(
                PeerRun.run([options.python, "\(options.peersDirectory)/parse_peer.py", file, "--rss"]).output)
            row.pythonHWMMB = (pythonRSS["hwm_kb"] ?? .nan) / 1024
            if size == sizes.last {
                Console.error("• stream: \(CoreReport.rows(size)) rows: 10 subscribe --initial + 1 list")
                load = measureLoad(daemon, rows: size, fileMB: row.fileMB)
            }
            daemon.stop()
            rows.append(row)
        }
        write(rows, load, machine)
    }

    private var booksctl: String { options.binDirectory + "/booksctl" }

    /// One `booksctl subscribe --json`: exec → counted as a subscriber; then a client write and
    /// the time until its line is printed; the subscriber's VmHWM after that.
    private func measureSubscriber(_ daemon: DaemonProcess, run: Int, into row: inout SizeRow) {
        guard let probe = LineClient.connectIfListening(daemon.socketPath), probe.helloPoint() != nil else { return }
        defer { probe.close() }
        let start = Stopwatch.now()
        guard let child = LineChild([booksctl, "--socket", daemon.socketPath, "subscribe", "--json"]) else { return }
        defer { child.stop() }
        var ready: UInt64?
        while ready == nil && Stopwatch.now() < start + 10_000_000_000 {
            if probe.send(#"{"id":"st","op":"status"}"#), let reply = probe.readLine(timeout: 5, containing: "\"st\""),
                (JSONLine.integer("subscribers", in: reply) ?? 0) >= 1
            {
                ready = Stopwatch.now()
            } else {
                usleep(1000)
            }
        }
        guard let ready else {
            Console.error("  subscriber did not subscribe within 10 s")
            return
        }
        let name = "stream-\(run)-\(start)"
        let wrote = Stopwatch.now()
        guard probe.send(#"{"id":"w","op":"insert","books":[{"name":"\#(name)","author":"bench"}]}"#) else { return }
        while let next = child.nextLine(until: wrote + 10_000_000_000) {
            if next.line.contains(name) {
                row.changeMS.append(Double(next.at - wrote) / 1e6)
                break
            }
        }
        row.readyMS.append(Double(ready - start) / 1e6)
        row.subscriberHWMMB.append(Double(ProcStatus.kB("VmHWM", pid: child.pid)) / 1024)
        row.subscriberAnonMB.append(Double(ProcStatus.kB("RssAnon", pid: child.pid)) / 1024)
    }

    /// One `booksctl list --json > /dev/null`: wall time and the client's peak memory.
    private func measureList(_ daemon: DaemonProcess, into row: inout SizeRow) {
        let start = Stopwatch.now()
        guard
            let child = try? ChildProcess.spawn(
                [booksctl, "--socket", daemon.socketPath, "list", "--json"], stdout: .devNull, stderr: .inherit,
                newProcessGroup: false)
        else { return }
        var hwm = 0
        while child.poll() == nil {
            hwm = max(hwm, ProcStatus.kB("VmHWM", pid: child.pid))
            usleep(2000)
        }
        row.listMS.append(Double(Stopwatch.now() - start) / 1e6)
        row.listHWMMB = max(row.listHWMMB, Double(hwm) / 1024)
    }
}
