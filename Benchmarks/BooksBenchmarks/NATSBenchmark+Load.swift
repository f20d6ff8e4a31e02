import BooksTestSupport
import Glibc

/// A nats-server and a booksd publishing to it, for one part of the NATS benchmark.
struct NATSBenchDaemon {
    let server: NATSServerProcess
    let daemon: DaemonProcess
    let options: LiveOptions

    /// Starts both (the server's JetStream storage under `directory/nats`).
    static func start(
        directory: String, file: String, options: LiveOptions, settings: [String] = [], binDirectory: String? = nil
    ) -> NATSBenchDaemon? {
        guard let server = try? NATSServerProcess(directory: directory + "/nats") else {
            Console.error("  cannot start nats-server; skipped")
            return nil
        }
        guard
            let daemon = DaemonProcess.benchmark(
                binDirectory: binDirectory ?? options.binDirectory, file: file, socket: directory + "/booksd.sock",
                settings: ["nats_url=\(server.url)", "max_clients=200"] + settings, logPath: directory + "/booksd.log")
        else { return nil }
        return NATSBenchDaemon(server: server, daemon: daemon, options: options)
    }

    /// `booksctl --nats URL subscribe --json` (an ordered consumer of the stream, new messages).
    func remoteSubscriber(stderrPath: String) -> LineChild? {
        LineChild(
            ["\(options.binDirectory)/booksctl", "--nats", server.url, "subscribe", "--json"], stderrPath: stderrPath)
    }

    /// `BooksBenchmarks nats-listen ARGUMENTS` (this executable as the load generator).
    func listener(_ arguments: [String], stderrPath: String) -> LineChild? {
        LineChild([BuildProducts.currentExecutable(), "nats-listen"] + arguments, stderrPath: stderrPath)
    }

    func stop() {
        daemon.stop()
        server.kill()
    }
}

extension NATSBenchmark {
    // MARK: Fan-out

    mutating func measureFanOut() {
        let directory = "\(options.workDirectory)/live/nats-fanout"
        guard var file = Self.freshFile(directory: directory, rows: 10_000),
            let bench = NATSBenchDaemon.start(directory: directory, file: file.path, options: options)
        else { return }
        defer { bench.stop() }
        for count in subscriberCounts {
            Console.error("• nats fan-out: \(count) subscribers, \(fanOutEdits) edits")
            guard
                let child = bench.listener(
                    ["fanout", bench.server.url, "books.default.changes", String(count)],
                    stderrPath: directory + "/listener-\(count).err"),
                child.nextLine(until: Stopwatch.now() + 300_000_000_000)?.line == "ready"
            else {
                Console.error("  the listener did not get ready; see \(directory)")
                continue
            }
            var cell = FanOutCell(subscribers: count)
            for round in -1..<fanOutEdits {  // round -1: warm-up, not counted
                child.drain(quiet: 20_000_000, cap: 2_000_000_000)
                let at = file.perform(.append).at
                guard let line = child.nextLine(until: at + 30_000_000_000)?.line else {
                    cell.missed += 1
                    continue
                }
                let fields = line.split(separator: " ")
                guard fields.count == 4, fields[0] == "all", let first = UInt64(fields[2]), let last = UInt64(fields[3])
                else { continue }
                if round >= 0 {
                    cell.first.append(Double(Int64(first) - Int64(at)) / 1e6)
                    cell.last.append(Double(Int64(last) - Int64(at)) / 1e6)
                }
            }
            child.stop()
            let last = Distribution(cell.last)
            Console.error("  last subscriber p50 \(CoreReport.ms(last.p50)) ms, p99 \(CoreReport.ms(last.p99)) ms")
            fanOut.append(cell)
        }
    }

    // MARK: Writers

    /// `batch` nil: `booksd` is an older booksd (without `nats_batch`), the before of a comparison.
    mutating func measureWrites(batch: Int?, booksd: String? = nil) {
        let rows = 10_000
        let writers = 32
        let directory = "\(options.workDirectory)/live/nats-writes-\(batch.map(String.init) ?? "before")"
        guard var file = Self.freshFile(directory: directory, rows: rows),
            let bench = NATSBenchDaemon.start(
                directory: directory, file: file.path, options: options,
                settings: batch.map { ["nats_batch=\($0)"] } ?? [],
                binDirectory: booksd.map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) })
        else { return }
        defer { bench.stop() }
        guard
            let child = bench.listener(
                ["count", bench.server.url, "books.default.changes"], stderrPath: directory + "/listener.err"),
            child.nextLine(until: Stopwatch.now() + 60_000_000_000)?.line == "ready"
        else { return Console.error("  the listener did not get ready; see \(directory)") }
        defer { child.stop() }
        // The stream is live once a warm-up edit reaches the consumer; what came before the
        // writers (the warm-up, maybe the initial snapshot marker) is the baseline count.
        _ = file.perform(.append)
        guard let warm = child.nextLine(until: Stopwatch.now() + 60_000_000_000)?.line, warm.hasPrefix("n ") else {
            return Console.error("  the warm-up edit never reached the listener; see \(directory)")
        }
        let before = ([warm] + child.drain(quiet: 500_000_000)).compactMap(Self.countLine).last
        Console.error(
            "• nats writes: \(writers) writers, " + (batch.map { "nats_batch = \($0)" } ?? "before: \(booksd ?? "")"))
        let start = Stopwatch.now()
        let inserts = WriteBenchmark(options: options).measure(
            socket: bench.daemon.socketPath, rows: rows, writers: writers)
        var seen = before ?? (0, 0, start, start)
        while seen.books < (before?.books ?? 0) + inserts.completed,
            let line = child.nextLine(until: Stopwatch.now() + 60_000_000_000)
        {
            if let count = Self.countLine(line.line) { seen = count }
        }
        let (received, books, last) = (
            seen.messages - (before?.messages ?? 0), seen.books - (before?.books ?? 0), seen.at
        )
        let seconds = Double(last - start) / 1e9
        let cell = WritesCell(
            batch: batch, writers: writers, inserts: inserts, remoteReceived: received, remoteBooks: books,
            remoteSeconds: seconds,
            lagMS: (seconds - inserts.seconds) * 1000)
        Console.error(
            """
              \(CoreReport.f(inserts.perSecond, 1)) inserts/s acknowledged; remote subscriber \
            \(CoreReport.f(cell.remotePerSecond, 1)) change sets/s, \(CoreReport.f(cell.remoteBooksPerSecond, 1)) \
            books/s (\(books) of \(inserts.completed) in \(received) change sets), \
            last \(CoreReport.f(cell.lagMS, 1)) ms after the last acknowledgement
            """)
        writes.append(cell)
    }

    /// `n <messages> <books> <first ns> <last ns>` from the `count` listener.
    static func countLine(_ line: String) -> (messages: Int, books: Int, first: UInt64, at: UInt64)? {
        let fields = line.split(separator: " ")
        guard fields.count == 5, fields[0] == "n", let messages = Int(fields[1]), let books = Int(fields[2]),
            let first = UInt64(fields[3]), let at = UInt64(fields[4])
        else { return nil }
        return (messages, books, first, at)
    }
}
