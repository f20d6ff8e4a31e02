/// The results file (`fanout.tsv`) and the Markdown section of `FanOutBenchmark`.
struct FanOutReport {
    let benchmark: FanOutBenchmark
    var rows: [FanOutBenchmark.Row] { benchmark.rows }
    var one: FanOutBenchmark.Row? { rows.first { $0.subscribers == 1 } }

    func writeResults() {
        ResultsFile.write(
            "fanout",
            header: [
                "subscribers", "first_change_ms", "first_change_max_ms", "first_p50", "last_p50", "last_p99",
                "last_max", "missed", "join_ms", "cpu_per_change_ms", "rss_per_subscriber_kb", "burst", "burst_ms",
                "changes_per_s", "deliveries_per_s", "cold_first_change_ms", "cold_first_change_max_ms",
                "cold_snapshot_first_change_ms", "cold_snapshot_first_change_max_ms", "cold_snapshot_later_p50_ms",
                "cold_later_p50_ms",
            ],
            rows: rows.map { r in
                [
                    String(r.subscribers), String(r.firstChangeMedian), String(r.firstChange.max() ?? .nan),
                    String(r.first.p50), String(r.last.p50), String(r.last.p99), String(r.last.max), String(r.missed),
                    String(r.joinMS), String(r.cpuPerChangeMS), String(r.rssPerSubscriberKB), String(r.burst),
                    String(r.burstMS), String(r.changesPerSecond), String(r.deliveriesPerSecond),
                    String(r.coldFirstChangeMedian), String(r.coldFirstChange.max() ?? .nan),
                    String(r.coldSnapshotFirstChangeMedian), String(r.coldSnapshotFirstChange.max() ?? .nan),
                    String(Distribution(r.coldSnapshotLater).p50), String(Distribution(r.coldLater).p50),
                ]
            }, options: benchmark.options)
    }

    func markdown(machine: MachineInfo) -> String {
        let b = benchmark
        var md = [FanOutBenchmark.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(b.options.commandLine)`. A \(CoreReport.rows(b.fileRows))-row file; "
                + "per subscriber count and round (\(b.rounds) rounds) a fresh booksd, which handles one append before the subscribers join (`--set max_clients=N+64 --set "
                + "max_clients_per_uid=0`; the benchmark raises its `RLIMIT_NOFILE` to the hard limit and booksd "
                + "inherits it). All subscribers are raw Unix-socket connections held by this one process and read "
                + "by one epoll loop in one thread; they join together (each sends `hello` and `subscribe` resuming "
                + "at one hello point, no snapshot, before any reply is read), stay idle for "
                + "\(Double(b.idleMicroseconds) / 1e6) s, then one row is appended per change (`open(O_APPEND)`, "
                + "write, close; latency from `close()` to the `read()` of the change). **First change** = the "
                + "first append after they joined (one per round); **later** = the next \(b.laterChanges) per round "
                + "(\(b.rounds * b.laterChanges) in all). **Joined before the first change** = the same, on "
                + "another fresh booksd per round that handled no change before the subscribers joined: its "
                + "first change since it started, compared with the next \(b.laterChanges) changes on the same "
                + "daemons; **with snapshots** = the same with subscribers that "
                + "subscribe without `resume`, each receiving the whole file as a snapshot, read to its end "
                + "before the idle time (up to 1,000 subscribers), compared with the next \(b.laterChanges) "
                + "changes on the same daemons. booksd CPU per change from /proc/PID/task/*/schedstat; "
                + "VmRSS per idle subscriber = (VmRSS after joining − before) / N. Burst: \(b.burst) client inserts "
                + "pipelined on one extra connection, until every subscriber has the last one. The machine's 2 "
                + "cores are shared with other builds: absolute times are noisy; ratios are within one run.")
        md.append("")
        md.append(
            "| subscribers | first change: last subscriber ms (each round) "
                + "| joined before the first change: last subscriber ms (each round) "
                + "| joined before, with snapshots ms (each round) | later: last p50 ms "
                + "| last p99 ms | last max ms | first ÷ later p50 | joined before: later p50 ms (same daemons) "
                + "| joined before ÷ its later p50 "
                + "| with snapshots: later p50 ms (same daemons) | with snapshots: first ÷ its later p50 "
                + "| later p50 ÷ one subscriber | booksd CPU ms/change "
                + "| VmRSS KiB per idle subscriber | join ms | burst ms | deliveries/s | missed |")
        md.append("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows {
            let rounds = r.firstChange.map { CoreReport.ms($0) }.joined(separator: ", ")
            let cold = r.coldFirstChange.map { CoreReport.ms($0) }.joined(separator: ", ")
            let coldSnapshot = r.coldSnapshotFirstChange.map { CoreReport.ms($0) }.joined(separator: ", ")
            let snapshotLater = Distribution(r.coldSnapshotLater).p50
            let coldLater = Distribution(r.coldLater).p50
            let versusOne = one.map { CoreReport.f(r.last.p50 / $0.last.p50, 1) + "×" } ?? "–"
            md.append(
                "| \(r.subscribers) | \(rounds) | \(cold) | \(coldSnapshot) | \(CoreReport.ms(r.last.p50)) "
                    + "| \(CoreReport.ms(r.last.p99)) | \(CoreReport.ms(r.last.max)) "
                    + "| \(CoreReport.f(r.firstChangeMedian / r.last.p50, 2))× "
                    + "| \(CoreReport.ms(coldLater)) | \(CoreReport.f(r.coldFirstChangeMedian / coldLater, 2))× "
                    + "| \(CoreReport.ms(snapshotLater)) "
                    + "| \(CoreReport.f(r.coldSnapshotFirstChangeMedian / snapshotLater, 2))× "
                    + "| \(versusOne) | \(CoreReport.ms(r.cpuPerChangeMS)) "
                    + "| \(CoreReport.f(r.rssPerSubscriberKB, 2)) | \(CoreReport.f(r.joinMS, 0)) "
                    + "| \(CoreReport.ms(r.burstMS)) | \(CoreReport.f(r.deliveriesPerSecond, 0)) | \(r.missed) |")
        }
        md.append("")
        md += targets()
        if let c = b.churn {
            let ratio = c.last.p50 / c.quietP50
            let met = ratio <= 2 && c.wrongStayers == 0
            var text = "**Churn**: \(c.stayers) subscribers stay while others join and leave at \(c.rate)/s "
            text += "(each join: connect, `hello` + `subscribe` pipelined; \(c.population) churning connections "
            text += "open at a time; each leave closes without reading), one append every 100 ms, \(c.changes) "
            text += "changes, \(c.joins) joins and \(c.leaves) leaves in \(CoreReport.f(c.seconds, 1)) s. "
            text += "Stayers with a change lost or repeated: \(c.wrongStayers) (lost \(c.lost), repeated "
            text += "\(c.repeated)). Last stayer p50 \(CoreReport.ms(c.last.p50)) ms, p99 "
            text += "\(CoreReport.ms(c.last.p99)) ms vs quiet \(CoreReport.ms(c.quietP50)) ms = "
            text += "\(CoreReport.f(ratio, 2))× (target: none lost or repeated, ≤ 2×: **\(met ? "met" : "MISSED")**)."
            md.append("")
            md.append(text)
        }
        if let f = b.filters {
            let plain = rows.first { $0.subscribers == f.subscribers }.map { CoreReport.ms($0.cpuPerChangeMS) } ?? "–"
            let each = f.subscribers / f.filters
            var text =
                "**Filters**: \(f.subscribers) subscribers on \(f.filters) different `author contains …` filters "
            text += "(\(each) each), \(f.changes) appends, each matching one filter: last matching subscriber "
            text += "p50 \(CoreReport.ms(f.last.p50)) ms, p99 \(CoreReport.ms(f.last.p99)) ms, missed \(f.missed); "
            text += "booksd CPU \(CoreReport.ms(f.cpuPerChangeMS)) ms/change (unfiltered: \(plain) ms). "
            text += "Each change is filtered and encoded once per distinct filter (\(f.filters) times), not once per "
            text += "subscriber: `SocketServerTests.eachDistinctFilterIsEvaluatedOncePerChange` counts it "
            text += "(`ServerStatistics.filterEvaluations`)."
            md.append("")
            md.append(text)
        }
        md.append("")
        return md.joined(separator: "\n")
    }

    private func targets() -> [String] {
        var lines: [String] = []
        for r in rows {
            let ratio = r.firstChangeMedian / r.last.p50
            lines.append(
                "- \(r.subscribers): first change (median of rounds) ≤ 2× a later one (p50): "
                    + "\(CoreReport.f(ratio, 2))× — **\(ratio <= 2 ? "met" : "MISSED")**")
            let cold = r.coldFirstChangeMedian / Distribution(r.coldLater).p50
            lines.append(
                "- \(r.subscribers): joined before the first change: first change (median of rounds) ≤ 2× a later "
                    + "one on the same daemon (p50): \(CoreReport.f(cold, 2))× — **\(cold <= 2 ? "met" : "MISSED")**")
            guard !r.coldSnapshotLater.isEmpty else { continue }
            let snapshot = r.coldSnapshotFirstChangeMedian / Distribution(r.coldSnapshotLater).p50
            lines.append(
                "- \(r.subscribers): joined before the first change, with snapshots: first change ≤ 2× a later "
                    + "one on the same daemon (p50): \(CoreReport.f(snapshot, 2))× — "
                    + "**\(snapshot <= 2 ? "met" : "MISSED")**")
        }
        for (n, limit) in [(1_000, 10.0), (10_000, 60.0)] {
            guard let r = rows.first(where: { $0.subscribers == n }), let one else { continue }
            let ratio = r.last.p50 / one.last.p50
            lines.append(
                "- last of \(n) ≤ \(Int(limit))× one subscriber (p50): \(CoreReport.ms(r.last.p50)) vs "
                    + "\(CoreReport.ms(one.last.p50)) ms = \(CoreReport.f(ratio, 1))× — "
                    + "**\(ratio <= limit ? "met" : "MISSED")**")
        }
        return lines
    }
}
