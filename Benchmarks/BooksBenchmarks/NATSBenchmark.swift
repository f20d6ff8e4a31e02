import BooksTestSupport
import Glibc

/// `BooksBenchmarks nats`: booksd publishing to a real nats-server (started here on a
/// loopback port, JetStream storage in the work directory), in one run:
/// - edit → subscriber latency of a remote subscriber (`booksctl --nats … subscribe --json`,
///   an ordered JetStream consumer) beside a local one (`booksctl --socket … subscribe --json`)
///   on the same daemon and the same edits, at 10k and 1M rows;
/// - fan-out: the time until the last of N core-NATS subscribers (all in one load-generating
///   process, `NATSListener`) has a change;
/// - 32 concurrent writers (client inserts over the socket): inserts acknowledged per second and
///   the rate at which a remote subscriber (ordered consumer) receives them, with the publisher's
///   batches (`nats_batch` 256, the default) and change set by change set (`nats_batch = 1`).
struct NATSBenchmark {
    static let heading = "## Live: NATS JetStream (issue 14)"

    struct LatencyCell {
        var rows: Int
        var kind: LiveEditKind
        var local: [Double] = []
        var remote: [Double] = []
        var missed = 0
    }

    struct FanOutCell {
        var subscribers: Int
        var first: [Double] = []
        var last: [Double] = []
        var missed = 0
    }

    struct WritesCell {
        /// `nats_batch`; nil: the older booksd given with `--nats-booksd-before`.
        var batch: Int?
        var writers: Int
        var inserts: WriteBenchmark.Row
        var remoteReceived: Int
        var remoteBooks: Int
        var remoteSeconds: Double
        var lagMS: Double
        var remotePerSecond: Double { Double(remoteReceived) / remoteSeconds }
        var remoteBooksPerSecond: Double { Double(remoteBooks) / remoteSeconds }
    }

    let options: LiveOptions
    var latency: [LatencyCell] = []
    var fanOut: [FanOutCell] = []
    var writes: [WritesCell] = []
    var backlog: [BacklogCell] = []

    var sizes: [Int] { options.onlySizes ?? (options.quick ? [10_000] : [10_000, 1_000_000]) }
    var kinds: [LiveEditKind] { [.append, .rewrite] }
    func edits(rows: Int) -> Int { options.quick ? 5 : (rows >= 1_000_000 ? 20 : max(options.edits, 60)) }
    var fanOutEdits: Int { options.quick ? 5 : 20 }
    var subscriberCounts: [Int] { options.onlySubscribers ?? (options.quick ? [1, 100] : [1, 100, 1_000, 10_000]) }

    init(options: LiveOptions) { self.options = options }

    mutating func run() {
        guard NATSServerProcess.isInstalled else {
            Console.error("nats: nats-server is not installed (Debian package nats-server); skipped")
            return
        }
        let machine = MachineInfo.current()
        for rows in sizes { measureLatency(rows: rows) }
        measureFanOut()
        for batch in [256, 1] { measureWrites(batch: batch) }
        if let before = options.natsBooksdBefore { measureWrites(batch: nil, booksd: before) }
        for batch in [256, 1] { measureBacklog(batch: batch) }
        if let before = options.natsBooksdBefore { measureBacklog(batch: nil, booksd: before) }
        save()
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    // MARK: Latency

    private mutating func measureLatency(rows: Int) {
        let directory = "\(options.workDirectory)/live/nats-latency-\(rows)"
        guard var file = Self.freshFile(directory: directory, rows: rows),
            let bench = NATSBenchDaemon.start(directory: directory, file: file.path, options: options)
        else { return }
        defer { bench.stop() }
        let local = LineChild(
            ["\(options.binDirectory)/booksctl", "--socket", bench.daemon.socketPath, "subscribe", "--json"],
            stderrPath: directory + "/local.err")
        let remote = bench.remoteSubscriber(stderrPath: directory + "/remote.err")
        guard let local, let remote else { return Console.error("  cannot start the subscribers; skipped") }
        defer {
            local.stop()
            remote.stop()
        }
        let timeout: UInt64 = rows >= 1_000_000 ? 240_000_000_000 : 60_000_000_000
        guard Self.warmUp(&file, children: [local, remote], timeout: timeout) else {
            return Console.error("  the warm-up edit never reached both subscribers; see \(directory)")
        }
        for kind in kinds {
            var cell = LatencyCell(rows: rows, kind: kind)
            Console.error("• nats latency: \(CoreReport.rows(rows)) rows, \(kind.rawValue), \(edits(rows: rows)) edits")
            for _ in 0..<edits(rows: rows) {
                for child in [local, remote] { child.drain(quiet: 20_000_000, cap: 2_000_000_000) }
                let (expected, at) = file.perform(kind)
                let seen = Self.await(expected, children: [local, remote], since: at, timeout: timeout)
                guard let l = seen[0], let r = seen[1] else {
                    cell.missed += 1
                    continue
                }
                cell.local.append(Double(l - at) / 1e6)
                cell.remote.append(Double(r - at) / 1e6)
            }
            let (l, r) = (Distribution(cell.local), Distribution(cell.remote))
            Console.error(
                "  local p50 \(CoreReport.ms(l.p50)) p99 \(CoreReport.ms(l.p99)); remote p50 \(CoreReport.ms(r.p50)) "
                    + "p99 \(CoreReport.ms(r.p99)) ms; \(cell.missed) missed")
            latency.append(cell)
        }
    }

    /// One append that every child must report (a few tries).
    static func warmUp(_ file: inout LiveBookFile, children: [LineChild], timeout: UInt64) -> Bool {
        for _ in 0..<3 {
            let (expected, at) = file.perform(.append)
            if !Self.await(expected, children: children, since: at, timeout: timeout).contains(nil) { return true }
        }
        return false
    }

    /// Waits until each child printed the line reporting `expected`; the read time of each (nil: not
    /// within `timeout`). Both are read as their lines come (`poll`), so neither waits for the other.
    /// `peers` names each child's kind for `LatencyBenchmark.matches` (default `booksd`: a line
    /// with source `file`).
    static func await(
        _ expected: ExpectedChange, children: [LineChild], since: UInt64, timeout: UInt64, peers: [String] = []
    ) -> [UInt64?] {
        var seen = [UInt64?](repeating: nil, count: children.count)
        let deadline = since + timeout
        while seen.contains(nil) && Stopwatch.now() < deadline {
            var fds = children.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for (k, child) in children.enumerated() where seen[k] == nil {
                for (line, at) in child.availableLines()
                where LatencyBenchmark.matches(line, expected, peer: k < peers.count ? peers[k] : "booksd")
                    && seen[k] == nil
                {
                    seen[k] = at
                }
            }
        }
        return seen
    }

    static func freshFile(directory: String, rows: Int) -> LiveBookFile? {
        TestFiles.removeTree(directory)
        FileBytes.makeDirectory(directory)
        guard let file = try? LiveBookFile(path: directory + "/books.txt", rows: rows) else {
            Console.error("cannot write \(directory)/books.txt")
            return nil
        }
        return file
    }
}
