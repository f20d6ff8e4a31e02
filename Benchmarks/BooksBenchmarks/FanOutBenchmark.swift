import BooksTestSupport
import Glibc

/// `BooksBenchmarks fanout`: 1, 100 and 1,000 subscribers held by this one process (raw
/// sockets, one event loop): time until the first and the last subscriber have a file change,
/// booksd CPU per change (/proc/PID/stat utime+stime), a burst of client inserts (deliveries per
/// second), and VmRSS per idle subscriber.
struct FanOutBenchmark {
    static let heading = "## Live: fan-out to subscribers"

    struct Row: Sendable {
        var subscribers: Int
        var first: Distribution
        var last: Distribution
        var missed: Int
        var cpuPerChangeMS: Double
        var schedPerChangeMS: Double
        var burst: Int
        var burstMS: Double
        var rssBeforeKB: Int
        var rssAfterKB: Int
        var deliveriesPerSecond: Double { Double(subscribers * burst) / (burstMS / 1000) }
        var changesPerSecond: Double { Double(burst) / (burstMS / 1000) }
    }

    let options: LiveOptions
    var rows: [Row] = []
    var fileRows: Int { options.quick ? 1_000 : 10_000 }
    var changes: Int { options.quick ? 5 : 20 }
    var burst: Int { options.quick ? 10 : 50 }

    init(options: LiveOptions) { self.options = options }

    mutating func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/fanout"
        FileBytes.makeDirectory(directory)
        guard var file = try? LiveBookFile(path: directory + "/books.txt", rows: fileRows) else { exit(1) }
        guard
            let daemon = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: file.path, socket: directory + "/booksd.sock",
                settings: ["max_clients=4000"], logPath: directory + "/booksd.log")
        else { exit(1) }
        defer { daemon.stop() }
        for count in options.subscriberCounts {
            Console.error("• fan-out: \(count) subscribers, \(changes) file appends, burst of \(burst) inserts")
            let rssBefore = daemon.rssKB
            guard let pool = SubscriberPool(socketPath: daemon.socketPath, count: count) else { exit(1) }
            usleep(200_000)
            let rssAfter = daemon.rssKB
            var first: [Double] = []
            var last: [Double] = []
            var missed = 0
            let cpuStart = daemon.cpuMS
            let schedStart = daemon.schedMS
            for _ in 0..<changes {
                let (expected, at) = file.perform(.append)
                let arrivals = pool.arrival(of: expected.id, since: at, timeoutNS: 30_000_000_000)
                let got = arrivals.compactMap { $0 }
                missed += arrivals.count - got.count
                if let lo = got.min(), let hi = got.max(), got.count == arrivals.count {
                    first.append(Double(lo) / 1e6)
                    last.append(Double(hi) / 1e6)
                }
                usleep(20_000)
            }
            let cpuPerChange = (daemon.cpuMS - cpuStart) / Double(changes)
            let schedPerChange = (daemon.schedMS - schedStart) / Double(changes)
            // Burst: `burst` inserts pipelined on one writer connection; done when every subscriber
            // has the last one (changes are delivered in seq order).
            var burstMS = Double.nan
            if let writer = LineClient.connectIfListening(daemon.socketPath),
                writer.helloPoint(client: "bench-burst") != nil
            {
                let marker = "Burst \(count)-\(burst)"
                let start = Stopwatch.now()
                for k in 1...burst {
                    writer.enqueue(
                        """
                        {\"id\":\"b\(k)\",\"op\":\"insert\",\"books\":[{\"name\":\"Burst \
                        \(count)-\(k)\",\"author\":\"Bench\"}]}
                        """
                    )
                }
                while writer.wantsWrite {
                    usleep(100)
                    writer.flush()
                }
                let arrivals = pool.arrival(of: "\"" + marker + "\"", since: start, timeoutNS: 120_000_000_000)
                if arrivals.allSatisfy({ $0 != nil }) {
                    burstMS = Double(arrivals.compactMap { $0 }.max()!) / 1e6
                } else {
                    Console.error("  burst: \(arrivals.filter { $0 == nil }.count) subscribers missed it")
                }
                writer.close()
            }
            pool.close()
            usleep(200_000)
            let row = Row(
                subscribers: count, first: Distribution(first), last: Distribution(last), missed: missed,
                cpuPerChangeMS: cpuPerChange, schedPerChangeMS: schedPerChange, burst: burst, burstMS: burstMS,
                rssBeforeKB: rssBefore, rssAfterKB: rssAfter)
            Console.error(
                "  last p50 \(CoreReport.ms(row.last.p50)) ms, cpu/change \(CoreReport.ms(schedPerChange)) ms "
                    + "(stat \(CoreReport.ms(cpuPerChange))), "
                    + "burst \(CoreReport.ms(burstMS)) ms, RSS +\(rssAfter - rssBefore) KiB")
            rows.append(row)
        }
        ResultsFile.write(
            "fanout",
            header: [
                "subscribers", "first_p50", "last_p50", "last_p99", "last_max", "missed",
                "cpu_per_change_ms", "sched_per_change_ms", "burst", "burst_ms", "changes_per_s", "deliveries_per_s",
                "rss_before_kb", "rss_after_kb",
            ],
            rows: rows.map { r in
                [
                    String(r.subscribers), String(r.first.p50), String(r.last.p50), String(r.last.p99),
                    String(r.last.max),
                    String(r.missed), String(r.cpuPerChangeMS), String(r.schedPerChangeMS), String(r.burst),
                    String(r.burstMS),
                    String(r.changesPerSecond), String(r.deliveriesPerSecond), String(r.rssBeforeKB),
                    String(r.rssAfterKB),
                ]
            }, options: options)
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    func markdown(machine: MachineInfo) -> String {
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. One booksd on a "
                + "\(CoreReport.rows(fileRows))-row file (`--set max_clients=4000`); all subscribers are raw "
                + "Unix-socket connections held by the one benchmark process and read by one epoll loop in one "
                + "thread (hello, then `subscribe` resuming at the hello point: no snapshot; the epoll set is "
                + "built before the first edit, lines are searched as bytes). Per subscriber count: \(changes) "
                + "file appends (latency from `close()` to the `read()` of the change on the first and on the last "
                + "subscriber), booksd CPU per change over those appends, from /proc/PID/task/*/schedstat (ns "
                + "resolution) and from /proc/PID/stat utime+stime (10 ms ticks: coarse for small N), then a burst "
                + "of \(burst) client inserts pipelined on one extra connection (time until every subscriber has "
                + "the last one)."
        )
        md.append("")
        md.append(
            """
            | subscribers | first p50 ms | last p50 ms | last p99 ms | last max ms | missed | booksd CPU \
            ms/change (schedstat / stat) | burst ms | changes/s | deliveries/s | VmRSS before → after \
            subscribing MB |
            """
        )
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows {
            md.append(
                "| \(r.subscribers) | \(CoreReport.ms(r.first.p50)) | \(CoreReport.ms(r.last.p50)) | "
                    + "\(CoreReport.ms(r.last.p99)) | "
                    + "\(CoreReport.ms(r.last.max)) | \(r.missed) | \(CoreReport.ms(r.schedPerChangeMS)) / "
                    + "\(CoreReport.ms(r.cpuPerChangeMS)) | \(CoreReport.ms(r.burstMS)) | "
                    + "\(CoreReport.f(r.changesPerSecond, 0)) | \(CoreReport.f(r.deliveriesPerSecond, 0)) | "
                    + "\(CoreReport.f(Double(r.rssBeforeKB) / 1024, 1)) → "
                    + "\(CoreReport.f(Double(r.rssAfterKB) / 1024, 1)) |"
            )
        }
        if let big = rows.last, big.subscribers > 1 {
            let perSubscriber = Double(big.rssAfterKB - big.rssBeforeKB) / Double(big.subscribers)
            md.append("")
            md.append(
                "Per idle subscriber: (VmRSS with \(big.subscribers) idle subscribers − before) / "
                    + "\(big.subscribers) = \(CoreReport.f(perSubscriber, 1)) KiB. Plot: "
                    + "`docs/benchmarks/fanout.png`.")
        }
        md.append("")
        return md.joined(separator: "\n")
    }
}
