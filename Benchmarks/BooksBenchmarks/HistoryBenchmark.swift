import BooksTestSupport
import Glibc

/// `BooksBenchmarks history` (`LiveOptions`; `--quick`: 10k rows, 2,000 change sets): the
/// history ops at 1M rows with 100,000 change sets kept, all built by real client writes.
///
/// 1. Attribution: durable single-book inserts against two booksd on copies of the same file,
///    one keeping each client write's actor and one started with the benchmark-only
///    `BOOKSD_BENCHMARK_UNATTRIBUTED_WRITES=1`, one insert on each in turn (same run); the
///    daemons' CPU per insert, and the encoding the actor adds to a write (HistoryAttribution.swift).
/// 2. The history: one update of a book of the original file, then closed-loop inserts through
///    the socket (one change set each) until 100,000 change sets are kept.
/// 3. `log -n 20` and `blame ID` (the book updated first: its last change is the oldest change
///    set; a book never changed; the newest insert), as requests on an open connection and as
///    whole `booksctl` runs, beside `ping` (the floor) measured in the same rounds.
/// 4. `booksctl list` against `booksctl list --at SEQ` (halfway back and the oldest kept).
struct HistoryBenchmark {
    static let heading = "## Live: history ops (`log`, `blame`, `list --at`) and what attribution costs"

    let options: LiveOptions
    var rows: Int { options.onlySizes?.first ?? (options.quick ? 10_000 : 1_000_000) }
    var changeSets: Int { options.quick ? 2_000 : 100_000 }
    var insertsPerRound: Int { options.quick ? 200 : 1_000 }
    var rounds: Int { options.quick ? 2 : 5 }
    var runs: Int { options.quick ? 3 : 7 }

    /// What the run measured (milliseconds unless named otherwise).
    struct Figures: Sendable {
        var rows = 0
        var attributed: [Double] = []
        var unattributed: [Double] = []
        var attributedRounds: [Double] = []
        var unattributedRounds: [Double] = []
        /// Each daemon's CPU ms per insert, by round.
        var attributedCPU: [Double] = []
        var unattributedCPU: [Double] = []
        /// µs per write of encoding the journal record and change event, with the actor and without.
        var encoding = (withActor: 0.0, without: 0.0)
        var kept = 0
        var oldestSeq: UInt64 = 0
        var seq: UInt64 = 0
        var buildSeconds = 0.0
        /// Request → reply on an open connection, by request (`ping`, `log -n 20`, …).
        var requests: [(String, [Double])] = []
        /// Whole `booksctl` runs, by command line shown.
        var commands: [(String, [Double])] = []
    }

    init(options: LiveOptions) { self.options = options }

    func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/history"
        FileBytes.makeDirectory(directory + "/on")
        FileBytes.makeDirectory(directory + "/off")
        var figures = Figures()
        figures.rows = rows
        Console.error("• history: \(CoreReport.rows(rows)) rows, \(changeSets) change sets")
        guard let file = try? LiveBookFile(path: directory + "/on/books.txt", rows: rows),
            (try? FileBytes.write(file.content, to: directory + "/off/books.txt")) != nil
        else { exit(1) }
        let firstID = String(decoding: file.content.prefix(36), as: UTF8.self)
        let settings = ["change_log_retention=\(changeSets + 1_000)", "max_clients=200"]
        guard
            let on = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: directory + "/on/books.txt",
                socket: directory + "/on/booksd.sock", settings: settings, logPath: directory + "/on/booksd.log"),
            let off = Self.unattributedDaemon(
                binDirectory: options.binDirectory, directory: directory + "/off", settings: settings),
            let onClient = Self.connect(on.socketPath), let offClient = Self.connect(off.socketPath)
        else { exit(1) }
        // The first change set: an update of a book of the original file (blame's longest walk).
        guard Self.update(onClient, id: firstID) else {
            Console.error("the first update failed")
            exit(1)
        }
        var counter = 0
        attributionRounds(&figures, on: (on, onClient), off: (off, offClient), counter: &counter)
        offClient.close()
        off.stop()
        let start = Stopwatch.now()
        var seq = Self.position(onClient)
        while seq < UInt64(changeSets) {
            let batch = min(5_000, Int(UInt64(changeSets) - seq))
            _ = Self.inserts(onClient, count: batch, counter: &counter)
            seq = Self.position(onClient)
            Console.error("  history: seq \(seq)")
        }
        figures.buildSeconds = Double(Stopwatch.now() - start) / 1e9
        let lastID = Self.bookID(counter)
        measure(&figures, client: onClient, socket: on.socketPath, ids: (firstID, lastID, file))
        onClient.close()
        on.stop()
        let report = HistoryReport(figures: figures, machine: machine, command: options.commandLine)
        ResultsFile.write("history", header: ["what", "samples_ms"], rows: report.tsv, options: options)
        ResultsFile.publish(heading: Self.heading, markdown: report.markdown, options: options)
    }

    /// The ops, `runs` rounds, each round every request once (so load changes hit all alike).
    func measure(
        _ figures: inout Figures, client: LineClient, socket: String, ids: (String, String, LiveBookFile)
    ) {
        let status = Self.request(client, "{\"id\":\"s\",\"op\":\"status\"}") ?? ""
        figures.oldestSeq = JSONLine.integer("historyOldestSeq", in: status) ?? 0
        figures.seq = Self.position(client)
        figures.kept = Int(figures.seq - figures.oldestSeq + 1)
        let neverChanged = Self.rowID(ids.2.content, index: rows / 2)
        let half = figures.oldestSeq + (figures.seq - figures.oldestSeq) / 2
        let requests: [(String, String)] = [
            ("`ping` (floor)", "{\"id\":\"r\",\"op\":\"ping\"}"),
            ("`log` limit 20", "{\"id\":\"r\",\"op\":\"log\",\"limit\":20}"),
            ("`blame` of the book changed in the oldest change set", Self.blame(ids.0)),
            ("`blame` of a book never changed", Self.blame(neverChanged)),
            ("`blame` of the newest insert", Self.blame(ids.1)),
        ]
        let ctl = options.binDirectory + "/booksctl"
        let commands: [(String, [String])] = [
            ("`booksctl ping` (floor)", ["ping"]),
            ("`booksctl log -n 20`", ["log", "-n", "20"]),
            ("`booksctl blame ID` (changed in the oldest change set)", ["blame", ids.0]),
            ("`booksctl blame ID` (never changed)", ["blame", neverChanged]),
            ("`booksctl list`", ["list"]),
            ("`booksctl list --at SEQ` (halfway back, seq \(half))", ["list", "--at", String(half)]),
            (
                "`booksctl list --at SEQ` (the oldest kept, seq \(figures.oldestSeq))",
                ["list", "--at", String(figures.oldestSeq)]
            ),
        ]
        figures.requests = requests.map { ($0.0, []) }
        figures.commands = commands.map { ($0.0, []) }
        for run in 0..<runs {
            Console.error("  measuring, round \(run + 1)/\(runs)")
            for (k, request) in requests.enumerated() {
                let started = Stopwatch.now()
                guard Self.request(client, request.1) != nil else { exit(1) }
                figures.requests[k].1.append(Double(Stopwatch.now() - started) / 1e6)
            }
            for (k, command) in commands.enumerated() {
                figures.commands[k].1.append(Self.wall([ctl, "--socket", socket] + command.1))
            }
        }
    }

    static func blame(_ id: String) -> String { "{\"id\":\"r\",\"op\":\"blame\",\"ids\":[\"\(id)\"]}" }

    /// A booksd on `directory`'s copy that keeps no actor for socket clients' writes.
    static func unattributedDaemon(binDirectory: String, directory: String, settings: [String]) -> DaemonProcess? {
        DaemonProcess.benchmark(
            binDirectory: binDirectory, file: directory + "/books.txt", socket: directory + "/booksd.sock",
            settings: settings, logPath: directory + "/booksd.log",
            extraEnvironment: ["BOOKSD_BENCHMARK_UNATTRIBUTED_WRITES": "1"])
    }

    static func connect(_ path: String) -> LineClient? {
        guard let client = LineClient.connectIfListening(path), client.helloPoint() != nil else {
            Console.error("could not connect to \(path)")
            return nil
        }
        return client
    }

    /// Sends `line` (its id `r`, `s`, `u` or `hN`) and returns the reply with that id.
    static func request(_ client: LineClient, _ line: String) -> String? {
        guard let id = JSONLine.string("id", in: line), client.send(line) else { return nil }
        return client.readLine(timeout: 120, containing: "\"id\":\"\(id)\"")
    }

    /// The store's seq (a `ping`).
    static func position(_ client: LineClient) -> UInt64 {
        request(client, "{\"id\":\"s\",\"op\":\"ping\"}").flatMap { JSONLine.integer("seq", in: $0) } ?? 0
    }

    static func update(_ client: LineClient, id: String) -> Bool {
        let line = "{\"id\":\"u\",\"op\":\"update\",\"patches\":[{\"id\":\"\(id)\",\"name\":\"Changed first\"}]}"
        return request(client, line)?.contains("\"ok\":true") == true
    }

    /// `count` single-book inserts, each sent when the previous one was acknowledged (each its own
    /// change set); their latencies in ms.
    static func inserts(_ client: LineClient, count: Int, counter: inout Int) -> [Double] {
        var latencies: [Double] = []
        latencies.reserveCapacity(count)
        for _ in 0..<count {
            counter += 1
            let line = """
                {"id":"h\(counter)","op":"insert","books":[{"id":"\(bookID(counter))","name":"History \
                \(counter)","author":"Bench Writer"}]}
                """
            let started = Stopwatch.now()
            guard let reply = request(client, line), reply.contains("\"ok\":true") else {
                Console.error("insert \(counter) failed")
                exit(1)
            }
            latencies.append(Double(Stopwatch.now() - started) / 1e6)
        }
        return latencies
    }

    /// The id of the `n`th insert (a UUID's shape).
    static func bookID(_ n: Int) -> String {
        let digits = String(n)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    /// The id of row `index` of generated `content`.
    static func rowID(_ content: [UInt8], index: Int) -> String {
        var line = 0
        var start = 0
        while line < index, let newline = content[start...].firstIndex(of: 0x0A) {
            start = newline + 1
            line += 1
        }
        return String(decoding: content[start..<(start + 36)], as: UTF8.self)
    }

    /// Wall ms of one run of `argv` (output to /dev/null).
    static func wall(_ argv: [String]) -> Double {
        let started = Stopwatch.now()
        guard let child = try? ChildProcess.spawn(argv, stdout: .devNull, stderr: .devNull),
            child.waitBlocking(timeout: 600) == 0
        else {
            Console.error("\(argv.joined(separator: " ")) failed")
            exit(1)
        }
        return Double(Stopwatch.now() - started) / 1e6
    }
}
