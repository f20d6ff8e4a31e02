import BooksTestSupport
import Glibc

/// `BooksBenchmarks writes`: acknowledged (durable) client inserts per second with 1 and with 32
/// concurrent writers (32 connections, closed loop: each sends its next insert when the previous
/// one is acknowledged), p50/p99 latency per write, next to a full rewrite (write + fsync) of
/// the same file measured in the same run.
struct WriteBenchmark {
    static let heading = "## Live: durable client writes"

    struct Row: Sendable {
        var rows: Int
        var writers: Int
        var completed: Int
        var failed: Int
        var seconds: Double
        var latency: Distribution
        var perSecond: Double { Double(completed) / seconds }
    }

    let options: LiveOptions
    var results: [Row] = []
    var rewriteMS: [Int: Double] = [:]
    var sizes: [Int] { options.onlySizes ?? (options.quick ? [10_000] : [10_000, 1_000_000]) }
    func duration(rows: Int) -> Double { options.quick ? 1 : (rows >= 1_000_000 ? 8 : 4) }

    init(options: LiveOptions) { self.options = options }

    mutating func run() {
        let machine = MachineInfo.current()
        for rows in sizes {
            let directory = "\(options.workDirectory)/live/writes-\(rows)"
            FileBytes.makeDirectory(directory)
            guard let file = try? LiveBookFile(path: directory + "/books.txt", rows: rows) else { exit(1) }
            rewriteMS[rows] = Self.fullRewrite(file.content, directory: directory)
            guard
                let daemon = DaemonProcess.benchmark(
                    binDirectory: options.binDirectory, file: file.path, socket: directory + "/booksd.sock",
                    settings: ["max_clients=200"], logPath: directory + "/booksd.log")
            else { exit(1) }
            for writers in [1, 32] {
                Console.error(
                    "• writes: \(CoreReport.rows(rows)) rows, \(writers) writers, \(duration(rows: rows)) s")
                let row = measure(socket: daemon.socketPath, rows: rows, writers: writers)
                Console.error(
                    """
                      \(CoreReport.f(row.perSecond, 1)) inserts/s, p50 \(CoreReport.ms(row.latency.p50)) ms, p99 \
                    \(CoreReport.ms(row.latency.p99)) ms
                    """
                )
                results.append(row)
            }
            daemon.stop()
        }
        ResultsFile.write(
            "writes",
            header: ["rows", "writers", "completed", "failed", "seconds", "per_second", "p50", "p99", "rewrite_ms"],
            rows: results.map { r in
                [
                    String(r.rows), String(r.writers), String(r.completed), String(r.failed), String(r.seconds),
                    String(r.perSecond), String(r.latency.p50), String(r.latency.p99),
                    String(rewriteMS[r.rows] ?? .nan),
                ]
            }, options: options)
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    /// Median ms of writing `bytes` to a new file in `directory` and fsync-ing it (3 runs).
    static func fullRewrite(_ bytes: [UInt8], directory: String) -> Double {
        var times: [Double] = []
        for _ in 0..<3 {
            let path = directory + "/rewrite.tmp"
            times.append(
                Stopwatch.milliseconds {
                    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                    bytes.withUnsafeBytes { buffer in
                        var done = 0
                        while done < buffer.count {
                            let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                            if n <= 0 { break }
                            done += n
                        }
                    }
                    fsync(fd)
                    close(fd)
                })
            unlink(path)
        }
        return Stopwatch.median(times)
    }

    /// Runs `writers` closed-loop writers against `path` for `duration(rows:)` seconds.
    func measure(socket path: String, rows: Int, writers: Int) -> Row {
        var sockets: [LineClient] = []
        for k in 0..<writers {
            guard let s = LineClient.connectIfListening(path), s.helloPoint(client: "bench-writer-\(k)") != nil else {
                Console.error("writer \(k) could not connect")
                exit(1)
            }
            sockets.append(s)
        }
        var sentAt = Array(repeating: UInt64(0), count: writers)
        var sequence = Array(repeating: 0, count: writers)
        var latencies: [Double] = []
        var failed = 0
        func send(_ k: Int) {
            sequence[k] += 1
            sentAt[k] = Stopwatch.now()
            sockets[k].enqueue(
                """
                {\"id\":\"w\(sequence[k])\",\"op\":\"insert\",\"books\":[{\"name\":\"Write \
                \(rows)-\(writers)-\(k)-\(sequence[k])\",\"author\":\"Bench Writer\"}]}
                """
            )
        }
        let start = Stopwatch.now()
        let stopSending = start + UInt64(duration(rows: rows) * 1e9)
        let hardStop = stopSending + 120_000_000_000
        var outstanding = writers
        var last = start
        for k in 0..<writers { send(k) }
        while outstanding > 0 && Stopwatch.now() < hardStop {
            var fds = sockets.map {
                pollfd(fd: $0.fd, events: Int16(POLLIN | ($0.wantsWrite ? POLLOUT : 0)), revents: 0)
            }
            _ = poll(&fds, nfds_t(fds.count), 100)
            for k in 0..<writers {
                sockets[k].flush()
                for line in sockets[k].readAvailableLines() where line.contains("\"id\":\"w\(sequence[k])\"") {
                    let now = Stopwatch.now()
                    last = now
                    if line.contains("\"ok\":true") {
                        latencies.append(Double(now - sentAt[k]) / 1e6)
                    } else {
                        failed += 1
                    }
                    if now < stopSending { send(k) } else { outstanding -= 1 }
                }
            }
        }
        for s in sockets { s.close() }
        return Row(
            rows: rows, writers: writers, completed: latencies.count, failed: failed,
            seconds: Double(last - start) / 1e9, latency: Distribution(latencies))
    }

    func markdown(machine: MachineInfo) -> String {
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. A private booksd per size; W raw "
                + "connections in one `poll` loop, each with one `insert` of one book in flight (closed loop) for "
                + "the stated time, then the outstanding ones are awaited. Latency: request written → `ok` reply "
                + "read (the daemon replies after the file is durably saved). Full rewrite: write + fsync of the "
                + "whole file to a new file in the same directory, median of 3, same run.")
        md.append("")
        md.append(
            """
            | rows | writers | inserts acknowledged | seconds | inserts/s | p50 ms | p99 ms | full rewrite \
            (write+fsync) ms |
            """
        )
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in results {
            md.append(
                "| \(CoreReport.rows(r.rows)) | \(r.writers) | "
                    + "\(r.completed)\(r.failed > 0 ? " (+\(r.failed) failed)" : "") | "
                    + "\(CoreReport.f(r.seconds, 1)) | \(CoreReport.f(r.perSecond, 1)) | "
                    + "\(CoreReport.ms(r.latency.p50)) | "
                    + "\(CoreReport.ms(r.latency.p99)) | \(CoreReport.ms(rewriteMS[r.rows] ?? .nan)) |")
        }
        md.append("")
        return md.joined(separator: "\n")
    }
}
