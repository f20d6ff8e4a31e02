import BooksTestSupport
import Glibc

/// `replicas`' last part: 32 writers inserting on the owner's socket (the `writes` benchmark's
/// load) while two replicas follow the owner's stream, at 10k rows. Reported per replica: the
/// largest `behind the owner by N change set(s)` its `status` showed while the writers ran, the
/// rows its file still lacked at the last acknowledgement, and the time from that
/// acknowledgement until its file held every row the owner's did.
extension ReplicaBenchmark {
    struct WritersCell {
        var rows: Int
        var writers: Int
        var inserts: WriteBenchmark.Row
        /// Per replica.
        var behindMax: [Int]
        var missingAtLastAck: [Int]
        var catchUpMS: [Double]
    }

    /// Starts `booksd --replica default=PATH` on `directory/NAME/books.txt` (socket
    /// `directory/NAME.sock`) following `bench`'s owner.
    func startReplica(_ name: String, directory: String, bench: NATSBenchDaemon) -> (DaemonProcess, String)? {
        let path = "\(directory)/\(name)/books.txt"
        FileBytes.makeDirectory("\(directory)/\(name)")
        guard
            let replica = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: path, socket: "\(directory)/\(name).sock",
                settings: ["nats_url=\(bench.server.url)"], logPath: "\(directory)/\(name).log",
                arguments: ["--replica", "default=\(path)"])
        else { return nil }
        return (replica, path)
    }

    /// Waits until the file at `path` has at least `rows` lines, until `deadline`; when it did.
    static func awaitRows(_ rows: Int, in path: String, until deadline: UInt64) -> UInt64? {
        while Stopwatch.now() < deadline {
            if lineCount(path) >= rows { return Stopwatch.now() }
            usleep(5_000)
        }
        return nil
    }

    func measureWriters(rows: Int = 10_000, writers: Int = 32) -> WritersCell? {
        let directory = "\(options.workDirectory)/live/replica-writers-\(rows)"
        guard let file = NATSBenchmark.freshFile(directory: directory, rows: rows),
            let bench = NATSBenchDaemon.start(directory: directory, file: file.path, options: options)
        else { return nil }
        defer { bench.stop() }
        var replicas: [(daemon: DaemonProcess, path: String)] = []
        defer { for replica in replicas { replica.daemon.stop() } }
        for name in ["replica-a", "replica-b"] {
            guard let started = startReplica(name, directory: directory, bench: bench) else { return nil }
            replicas.append(started)
        }
        Console.error("• replicas: \(writers) writers on the owner, 2 replicas, \(CoreReport.rows(rows)) rows")
        for replica in replicas
        where Self.awaitRows(rows, in: replica.path, until: Stopwatch.now() + 120_000_000_000) == nil {
            Console.error("  a replica's first copy did not complete; see \(directory)")
            return nil
        }
        // Each replica's status, ten times a second: the largest backlog it reports.
        let samplers = replicas.indices.compactMap { k in
            LineChild(
                [
                    "/bin/sh", "-c",
                    """
                    while :; do "$0" --socket "$1" status | grep -o 'behind the owner by [0-9]*' \
                    || echo 'behind the owner by 0'; sleep 0.1; done
                    """,
                    "\(options.binDirectory)/booksctl", "\(directory)/replica-\(k == 0 ? "a" : "b").sock",
                ], stderrPath: directory + "/status-\(k).err")
        }
        defer { for sampler in samplers { sampler.stop() } }
        let start = Stopwatch.now()
        let inserts = WriteBenchmark(options: options).measure(
            socket: bench.daemon.socketPath, rows: rows, writers: writers)
        let lastAck = start + UInt64(inserts.seconds * 1e9)
        let target = Self.lineCount(file.path)  // every acknowledged insert is in the owner's file
        let missing = replicas.map { max(0, target - Self.lineCount($0.path)) }
        let caughtUp = replicas.map { Self.awaitRows(target, in: $0.path, until: Stopwatch.now() + 120_000_000_000) }
        let behind = samplers.map { sampler in
            sampler.drain(quiet: 300_000_000, cap: 1_000_000_000).compactMap {
                Int($0.split(separator: " ").last ?? "")
            }
            .max() ?? 0
        }
        let cell = WritersCell(
            rows: rows, writers: writers, inserts: inserts, behindMax: behind, missingAtLastAck: missing,
            catchUpMS: caughtUp.map { $0.map { Double(Int64($0) - Int64(lastAck)) / 1e6 } ?? .nan })
        Console.error(
            """
              \(CoreReport.f(inserts.perSecond, 1)) inserts/s acknowledged; replicas behind by at most \
            \(behind) change set(s), \(missing) row(s) missing at the last acknowledgement, all rows \
            \(cell.catchUpMS.map { CoreReport.ms($0) }) ms after it
            """)
        return cell
    }

    /// The docs table of the writers run.
    func writersMarkdown() -> String {
        guard !writerCells.isEmpty else { return "" }
        var text = "\n| rows | writers | inserts acknowledged (/s) | write p50 / p99 (ms) | "
        text += "replicas' largest `behind the owner by` | rows missing at the last ack | "
        text += "last ack → replica file holds every row (ms) |\n|---|---|---|---|---|---|---|\n"
        for cell in writerCells {
            text += "| \(CoreReport.rows(cell.rows)) | \(cell.writers) | \(cell.inserts.completed) "
            text += "(\(CoreReport.f(cell.inserts.perSecond, 1))) | \(CoreReport.ms(cell.inserts.latency.p50)) / "
            text += "\(CoreReport.ms(cell.inserts.latency.p99)) | "
            text += cell.behindMax.map(String.init).joined(separator: ", ") + " | "
            text += cell.missingAtLastAck.map(String.init).joined(separator: ", ") + " | "
            text += cell.catchUpMS.map { CoreReport.ms($0) }.joined(separator: ", ") + " |\n"
        }
        return text
    }
}
