import BooksTestSupport
import Glibc

/// `BooksBenchmarks latency`: edit-to-subscriber latency of booksd (`booksctl subscribe --json`)
/// against raw `inotifywait -m` (the file-level floor), a Python `watchdog` subscriber and a
/// watchman subscriber (both re-read and diff by id), on the same files and the same edits.
/// Peers run one at a time (2 shared cores: concurrent peers would slow each other).
/// `booksd-nats` (when nats-server is installed) is booksd publishing to a local nats-server with a
/// `booksctl --nats … subscribe --json` remote subscriber, beside the local socket's.
struct LatencyBenchmark {
    static let heading = "## Live: edit-to-subscriber latency"
    static let peers =
        ["inotifywait", "booksd"] + (NATSServerProcess.isInstalled ? ["booksd-nats"] : []) + ["watchdog", "watchman"]

    struct Cell: Sendable {
        var peer: String
        var rows: Int
        var kind: LiveEditKind
        var samples: [Double]
        var unexpected: Int
        var missed: Int
        var distribution: Distribution { Distribution(samples) }
    }

    let options: LiveOptions
    var cells: [Cell] = []
    /// VmRSS (KiB) after the initial load: booksd and the watchdog peer, per size.
    var daemonRSS: [Int: Int] = [:], pythonRSS: [Int: Int] = [:], watchmanPeerRSS: [Int: Int] = [:]

    init(options: LiveOptions) { self.options = options }

    mutating func run() {
        let machine = MachineInfo.current()
        FileBytes.makeDirectory(options.workDirectory + "/live")
        for rows in options.sizes {
            let directory = "\(options.workDirectory)/live/latency-\(rows)"
            FileBytes.makeDirectory(directory)
            for peer in options.peers(Self.peers) {
                // The same file and the same sequence of edits for every peer.
                guard var file = try? LiveBookFile(path: directory + "/books.txt", rows: rows) else {
                    Console.error("cannot write \(directory)/books.txt")
                    exit(1)
                }
                Console.error(
                    """
                    • latency: \(peer), \(CoreReport.rows(rows)) rows, \(options.edits(forRows: rows)) edits × \
                    \(LiveEditKind.allCases.count) kinds
                    """
                )
                measure(peer: peer, file: &file, directory: directory)
            }
        }
        save()
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    private mutating func measure(peer: String, file: inout LiveBookFile, directory: String) {
        let rows = file.rows
        var daemon: DaemonProcess?
        var nats: NATSServerProcess?
        let child: LineChild?
        let peersDir = options.peersDirectory
        switch peer {
        case "booksd-nats":
            nats = try? NATSServerProcess(directory: directory + "/nats")
            guard let nats else { return Console.error("  cannot start nats-server; skipped") }
            daemon = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: file.path, socket: directory + "/booksd.sock",
                settings: ["nats_url=\(nats.url)"], logPath: directory + "/booksd.log")
            child = LineChild(
                ["\(options.binDirectory)/booksctl", "--nats", nats.url, "subscribe", "--json"],
                stderrPath: directory + "/booksctl-nats.log")
        case "booksd":
            daemon = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: file.path, socket: directory + "/booksd.sock",
                logPath: directory + "/booksd.log")
            guard let daemon else { return }
            daemonRSS[rows] = daemon.rssKB
            child = LineChild(
                ["\(options.binDirectory)/booksctl", "--socket", daemon.socketPath, "subscribe", "--json"],
                stderrPath: directory + "/booksctl.log")
        case "inotifywait":
            child = LineChild([
                "inotifywait", "-m", "-q", "-e", "modify,close_write,moved_to,create",
                "--format", "%e %f", directory,
            ])
        case "watchdog":
            child = LineChild(
                [options.python, "-u", peersDir + "/watchdog_peer.py", file.path],
                stderrPath: directory + "/watchdog.log")
        default:
            child = LineChild(
                [options.python, "-u", peersDir + "/watchman_peer.py", file.path, directory + "/watchman-state"],
                stderrPath: directory + "/watchman.log")
        }
        guard let child else {
            daemon?.stop()
            return
        }
        defer {
            child.stop()
            daemon?.stop()
            nats?.kill()
        }
        let timeoutNS: UInt64 = rows >= 1_000_000 ? 60_000_000_000 : 15_000_000_000
        // Ready: the peer's own ready line, then one warm-up append that must arrive.
        if peer == "watchdog" || peer == "watchman" {
            while let line = child.nextLine(until: Stopwatch.now() + 120_000_000_000), !line.line.contains("\"ready\"")
            {}
        } else {
            usleep(200_000)
        }
        var warmed = false
        for _ in 0..<5 where !warmed {
            let (expected, at) = file.perform(.append)
            warmed = awaitChange(expected, from: child, peer: peer, since: at, timeoutNS: timeoutNS).latency != nil
        }
        guard warmed else {
            Console.error("  \(peer) never reported the warm-up edit; skipped")
            return
        }
        if peer == "watchdog" { pythonRSS[rows] = child.rssKB }
        if peer == "watchman" { watchmanPeerRSS[rows] = child.rssKB }
        var settle = 20_000_000 as UInt64
        for kind in LiveEditKind.allCases {
            var cell = Cell(peer: peer, rows: rows, kind: kind, samples: [], unexpected: 0, missed: 0)
            for _ in 0..<options.edits(forRows: rows) {
                // Let late lines from the previous edit (and a peer's re-read) pass first.
                cell.unexpected += unexpectedCount(child.drain(quiet: settle, cap: 10_000_000_000), peer: peer)
                if let preparation = kind.preparation {
                    let (prepared, at) = file.perform(preparation)
                    cell.unexpected +=
                        awaitChange(prepared, from: child, peer: peer, since: at, timeoutNS: timeoutNS)
                        .unexpected
                    cell.unexpected += unexpectedCount(child.drain(quiet: settle, cap: 10_000_000_000), peer: peer)
                }
                let (expected, at) = file.perform(kind)
                let outcome = awaitChange(expected, from: child, peer: peer, since: at, timeoutNS: timeoutNS)
                cell.unexpected += outcome.unexpected
                if let latency = outcome.latency {
                    cell.samples.append(latency)
                    settle = 20_000_000 + UInt64(latency * 1e6 / 2)
                } else {
                    cell.missed += 1
                    if cell.missed >= 3 { break }
                }
            }
            let d = cell.distribution
            Console.error(
                "  \(kind.rawValue): p50 \(CoreReport.ms(d.p50)) ms, p99 \(CoreReport.ms(d.p99)) ms, "
                    + "\(cell.samples.count) ok, \(cell.unexpected) unexpected, \(cell.missed) missed")
            cells.append(cell)
        }
    }

    /// Reads lines until the one reporting `expected` (inotifywait: any event on books.txt).
    private func awaitChange(
        _ expected: ExpectedChange, from child: LineChild, peer: String, since: UInt64,
        timeoutNS: UInt64
    ) -> (latency: Double?, unexpected: Int) {
        var unexpected = 0
        while let (line, at) = child.nextLine(until: since + timeoutNS) {
            if Self.matches(line, expected, peer: peer) {
                return (Double(at - since) / 1e6, unexpected)
            }
            unexpected += unexpectedCount([line], peer: peer)
        }
        return (nil, unexpected)
    }

    /// Whether `line` from `peer` reports `expected`.
    static func matches(_ line: String, _ expected: ExpectedChange, peer: String) -> Bool {
        if peer == "inotifywait" { return line.hasSuffix(" books.txt") }
        guard JSONLine.string("id", in: line) == expected.id, JSONLine.string("kind", in: line) == expected.kind else {
            return false
        }
        return !peer.hasPrefix("booksd") || JSONLine.string("source", in: line) == "file"
    }

    /// Lines that are not the expected change: for inotifywait, follow-up events are normal.
    private func unexpectedCount(_ lines: [String], peer: String) -> Int {
        peer == "inotifywait" ? 0 : lines.filter { !$0.contains("\"ready\"") }.count
    }

    private func save() {
        var rows: [[String]] = []
        for cell in cells {
            for (k, sample) in cell.samples.enumerated() {
                rows.append([cell.peer, String(cell.rows), cell.kind.slug, String(k), String(sample)])
            }
        }
        ResultsFile.write("latency-samples", header: ["peer", "rows", "edit", "n", "ms"], rows: rows, options: options)
        var summary: [[String]] = []
        for cell in cells {
            let d = cell.distribution
            summary.append([
                cell.peer, String(cell.rows), cell.kind.slug, String(d.count), String(d.p50), String(d.p90),
                String(d.p99), String(d.max), String(cell.unexpected), String(cell.missed),
            ])
        }
        ResultsFile.write(
            "latency", header: ["peer", "rows", "edit", "n", "p50", "p90", "p99", "max", "unexpected", "missed"],
            rows: summary, options: options)
        var memory: [[String]] = []
        for rows in options.sizes {
            memory.append([
                String(rows), String(daemonRSS[rows] ?? 0), String(pythonRSS[rows] ?? 0),
                String(watchmanPeerRSS[rows] ?? 0),
            ])
        }
        ResultsFile.write(
            "rss", header: ["rows", "booksd_kb", "watchdog_kb", "watchman_peer_kb"], rows: memory, options: options)
    }

    func markdown(machine: MachineInfo) -> String {
        var md = [Self.heading, ""]
        md.append(
            "Machine: \(machine.processors) CPUs (\(machine.cpuModel)), \(machine.kernel), shared with other work "
                + "(noisy: compare peers within this run). Date: \(machine.date). Command: "
                + "`\(options.commandLine)` (release build)."
        )
        md.append("")
        md.append(
            "Latency = from the return of the editing call (`close()` after the write, `rename()`, or `waitpid` of "
                + "`sed -i`) to the `read()` of the matching line from the subscriber's stdout pipe, both on "
                + "CLOCK_MONOTONIC in the benchmark process. Edits: **append** one row (O_APPEND write, close); "
                + "**in-place rewrite** (O_TRUNC, whole file with one name changed, close); **atomic replace** "
                + "(temp file + rename, one row deleted); **sed -i** changing one name; **append after sed -i** (a sed -i, its "
                + "change awaited untimed, then one timed append: the first event after a rename changed the "
                + "file's inode); **in-place rewrite in 4 KiB writes** (as in-place rewrite, written in 4 KiB "
                + "`write` calls as sed does); **append after a 4 KiB-write rewrite** (that rewrite awaited "
                + "untimed, then one timed append: same inode, page cache in 4 KiB pieces). Every line is checked: the "
                + "right id and kind (booksd also `source: file`); other lines count as unexpected. Peers run one "
                + "at a time on the same file and edit sequence: `inotifywait -m` on the directory (floor: first "
                + "event naming books.txt), `booksctl subscribe --json` against a private booksd (default "
                + "settings), `Benchmarks/peers/watchdog_peer.py` (watchdog: on close-write/moved-to re-read + "
                + "diff by id), `Benchmarks/peers/watchman_peer.py` (private watchman server, pywatchman "
                + "subscription, re-read + diff). Between edits the benchmark waits until the subscriber has been "
                + "quiet for 20 ms + half the last latency."
        )
        md.append("")
        md.append("| rows | edit | peer | N | p50 ms | p90 ms | p99 ms | max ms | unexpected | missed |")
        md.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for rows in options.sizes {
            for kind in LiveEditKind.allCases {
                for peer in Self.peers {
                    guard let cell = cells.first(where: { $0.rows == rows && $0.kind == kind && $0.peer == peer })
                    else {
                        md.append(
                            """
                            | \(CoreReport.rows(rows)) | \(kind.rawValue) | \(peer) | 0 | – | – | – | – | \
                            – | not run |
                            """
                        )
                        continue
                    }
                    let d = cell.distribution
                    func v(_ x: Double) -> String { x.isNaN ? "–" : CoreReport.ms(x) }
                    md.append(
                        "| \(CoreReport.rows(rows)) | \(kind.rawValue) | \(peer) | \(d.count) | \(v(d.p50)) | "
                            + "\(v(d.p90)) | \(v(d.p99)) | \(v(d.max)) | \(cell.unexpected) | \(cell.missed) |")
                }
            }
        }
        md.append("")
        md.append("Plots: `docs/benchmarks/latency-<rows>.png` (distribution per peer and edit kind, log scale).")
        md.append("")
        md.append("| rows | booksd VmRSS MB | watchdog peer VmRSS MB | watchman peer (Python client) VmRSS MB |")
        md.append("|---:|---:|---:|---:|")
        for rows in options.sizes {
            md.append(
                "| \(CoreReport.rows(rows)) | \(CoreReport.f(Double(daemonRSS[rows] ?? 0) / 1024, 1)) | "
                    + "\(CoreReport.f(Double(pythonRSS[rows] ?? 0) / 1024, 1)) | "
                    + "\(CoreReport.f(Double(watchmanPeerRSS[rows] ?? 0) / 1024, 1)) |"
            )
        }
        md.append("")
        md.append("RSS: VmRSS after start-up and one warm-up edit (booksd: right after it was ready).")
        md.append("")
        return md.joined(separator: "\n")
    }
}
