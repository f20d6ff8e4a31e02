import BooksTestSupport
import Glibc

/// `BooksBenchmarks fanout`: 1, 100, 1,000 and 10,000 subscribers held by this one process (raw
/// sockets, one epoll loop). Per count and round, a fresh booksd: the subscribers join together,
/// stay idle for a second, then the FIRST change after they joined and later ones are timed until
/// the last subscriber has them; booksd CPU per change, VmRSS per idle subscriber, and a burst of
/// client inserts; and the first change of a booksd the subscribers joined before any change
/// (`FanOutColdStart`), resuming and with snapshots. Then subscribers joining and leaving while changes flow (`FanOutChurn`), and
/// 1,000 subscribers on 50 filters (`FanOutFilters`).
struct FanOutBenchmark {
    static let heading = "## Live: fan-out to subscribers"

    struct Row: Sendable {
        var subscribers: Int
        /// Per round: ms until the last subscriber had the first change after joining.
        var firstChange: [Double]
        /// Per round, on a booksd that had no change before they joined (the daemon's first
        /// change since it started): ms until the last subscriber had it.
        var coldFirstChange: [Double] = []
        /// Later changes on those daemons: ms until the last subscriber had each.
        var coldLater: [Double] = []
        /// The same with subscribers that each received (and read) a snapshot when they joined.
        var coldSnapshotFirstChange: [Double] = []
        /// Later changes on those daemons (with snapshots): ms until the last subscriber had each.
        var coldSnapshotLater: [Double] = []
        /// Later changes: first and last subscriber.
        var first: Distribution
        var last: Distribution
        var missed: Int
        var joinMS: Double
        var cpuPerChangeMS: Double
        var rssPerSubscriberKB: Double
        var burst: Int
        var burstMS: Double
        var firstChangeMedian: Double { Distribution(firstChange).p50 }
        var coldFirstChangeMedian: Double { Distribution(coldFirstChange).p50 }
        var coldSnapshotFirstChangeMedian: Double { Distribution(coldSnapshotFirstChange).p50 }
        var deliveriesPerSecond: Double { Double(subscribers * burst) / (burstMS / 1000) }
        var changesPerSecond: Double { Double(burst) / (burstMS / 1000) }
    }

    let options: LiveOptions
    var rows: [Row] = []
    var churn: FanOutChurn.Result?
    var filters: FanOutFilters.Result?
    var fileRows: Int { options.quick ? 1_000 : 10_000 }
    var rounds: Int { options.quick ? 1 : 3 }
    /// Later changes per round (≥ 30 in all for a full run).
    var laterChanges: Int { options.quick ? 4 : 10 }
    var idleMicroseconds: UInt32 { options.quick ? 200_000 : 1_000_000 }
    var burst: Int { options.quick ? 10 : 50 }
    var directory: String { "\(options.workDirectory)/live/fanout" }

    init(options: LiveOptions) { self.options = options }

    /// The daemon settings for `subscribers` connections from this process's uid.
    static func settings(subscribers: Int) -> [String] {
        ["max_clients=\(subscribers + 64)", "max_clients_per_uid=0"]
    }

    mutating func run() {
        let machine = MachineInfo.current()
        let limit = DescriptorLimit.raise()
        Console.error("• fan-out: RLIMIT_NOFILE \(limit) (booksd inherits it)")
        FileBytes.makeDirectory(directory)
        guard (try? LiveBookFile(path: directory + "/books.txt", rows: fileRows)) != nil else { exit(1) }
        for count in options.subscriberCounts {
            // This process holds `count` descriptors, booksd `count` + its own.
            guard UInt64(count) + 200 <= limit else {
                Console.error(
                    "  skipped \(count) subscribers: RLIMIT_NOFILE \(limit) < \(count + 200) (raise the hard limit)")
                continue
            }
            guard var row = measure(subscribers: count) else { exit(1) }
            for round in 0..<rounds {
                guard let cold = FanOutColdStart.firstChange(benchmark: self, subscribers: count, round: round) else {
                    exit(1)
                }
                row.coldFirstChange.append(cold.first)
                row.coldLater += cold.later
                // Every subscriber receives the whole file: at most 1,000 of them (10,000 × a 10k-row
                // snapshot is 7 GB through the sockets).
                guard count <= 1_000 else { continue }
                guard
                    let withSnapshot = FanOutColdStart.firstChange(
                        benchmark: self, subscribers: count, round: round, snapshot: true)
                else { exit(1) }
                row.coldSnapshotFirstChange.append(withSnapshot.first)
                row.coldSnapshotLater += withSnapshot.later
            }
            rows.append(row)
        }
        let quiet = rows.first { $0.subscribers == (options.quick ? 10 : 1_000) }?.last.p50 ?? .nan
        churn = FanOutChurn(options: options, file: directory + "/books.txt", directory: directory).run(quietP50: quiet)
        filters = FanOutFilters(options: options, file: directory + "/books.txt", directory: directory).run()
        let report = FanOutReport(benchmark: self)
        report.writeResults()
        ResultsFile.publish(heading: Self.heading, markdown: report.markdown(machine: machine), options: options)
    }

    /// Starts a private booksd for `subscribers` on `directory`/books.txt, logging to `log` there;
    /// nil (reported) on failure.
    static func startDaemon(options: LiveOptions, directory: String, subscribers: Int, log: String) -> DaemonProcess? {
        DaemonProcess.benchmark(
            binDirectory: options.binDirectory, file: directory + "/books.txt", socket: directory + "/booksd.sock",
            settings: settings(subscribers: subscribers), logPath: directory + "/" + log)
    }

    private func measure(subscribers count: Int) -> Row? {
        var row = Row(
            subscribers: count, firstChange: [], first: Distribution([]), last: Distribution([]), missed: 0,
            joinMS: 0, cpuPerChangeMS: 0, rssPerSubscriberKB: 0, burst: burst, burstMS: .nan)
        var first: [Double] = []
        var last: [Double] = []
        var cpu: [Double] = []
        var rss: [Double] = []
        var joins: [Double] = []
        for round in 0..<rounds {
            Console.error("• fan-out: \(count) subscribers, round \(round + 1)/\(rounds)")
            guard
                let daemon = Self.startDaemon(
                    options: options, directory: directory, subscribers: count, log: "booksd.log")
            else { return nil }
            defer { _ = daemon.stop() }
            // One change before the subscribers join: the first change measured below is the
            // subscribers' first, not the daemon's first since it started (its own cold start,
            // e.g. first-use buffers, does not grow with N and is not what is measured here).
            _ = FanOutAppend.row(path: directory + "/books.txt", name: "Warm-up \(count)-\(round)", author: "Bench")
            usleep(100_000)
            let rssBefore = daemon.rssKB
            let joinStart = Stopwatch.now()
            guard let pool = SubscriberPool(socketPath: daemon.socketPath, count: count) else { return nil }
            joins.append(Double(Stopwatch.now() - joinStart) / 1e6)
            usleep(idleMicroseconds)
            rss.append(Double(daemon.rssKB - rssBefore) / Double(count))
            let cpuStart = daemon.schedMS
            for k in 0...laterChanges {
                let marker = "Fan \(count)-\(round)-\(k)"
                let at = FanOutAppend.row(path: directory + "/books.txt", name: marker, author: "Bench")
                let arrivals = pool.arrival(of: "\"" + marker + "\"", since: at, timeoutNS: 60_000_000_000)
                let got = arrivals.compactMap { $0 }
                row.missed += arrivals.count - got.count
                if let lo = got.min(), let hi = got.max(), got.count == arrivals.count {
                    if k == 0 {
                        row.firstChange.append(Double(hi) / 1e6)
                    } else {
                        first.append(Double(lo) / 1e6)
                        last.append(Double(hi) / 1e6)
                    }
                }
                usleep(20_000)
            }
            cpu.append((daemon.schedMS - cpuStart) / Double(laterChanges + 1))
            if round == rounds - 1 { row.burstMS = Self.burst(burst, subscribers: count, pool: pool, daemon: daemon) }
            pool.close()
            Console.error(
                "  first change \(CoreReport.ms(row.firstChange.last ?? .nan)) ms; later (last) p50 "
                    + "\(CoreReport.ms(Distribution(last).p50)) ms")
        }
        row.first = Distribution(first)
        row.last = Distribution(last)
        row.cpuPerChangeMS = Distribution(cpu).p50
        row.rssPerSubscriberKB = Distribution(rss).p50
        row.joinMS = Distribution(joins).p50
        return row
    }

    /// `count` inserts pipelined on one writer connection; ms until every subscriber has the last
    /// one (changes are delivered in seq order), NaN if some did not.
    private static func burst(_ count: Int, subscribers: Int, pool: SubscriberPool, daemon: DaemonProcess) -> Double {
        guard let writer = LineClient.connectIfListening(daemon.socketPath),
            writer.helloPoint(client: "bench-burst") != nil
        else { return .nan }
        defer { writer.close() }
        let marker = "Burst \(subscribers)-\(count)"
        let start = Stopwatch.now()
        for k in 1...count {
            writer.enqueue(
                #"{"id":"b\#(k)","op":"insert","books":[{"name":"Burst \#(subscribers)-\#(k)","author":"Bench"}]}"#)
        }
        while writer.wantsWrite {
            usleep(100)
            writer.flush()
        }
        let arrivals = pool.arrival(of: "\"" + marker + "\"", since: start, timeoutNS: 120_000_000_000)
        guard arrivals.allSatisfy({ $0 != nil }) else {
            Console.error("  burst: \(arrivals.filter { $0 == nil }.count) subscribers missed it")
            return .nan
        }
        return Double(arrivals.compactMap { $0 }.max()!) / 1e6
    }
}
