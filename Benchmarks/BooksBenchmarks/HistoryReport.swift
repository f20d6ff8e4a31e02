/// The Markdown section and raw samples of `BooksBenchmarks history` (``HistoryBenchmark``).
struct HistoryReport {
    let figures: HistoryBenchmark.Figures
    let machine: MachineInfo
    let command: String

    /// One row per measured thing: its samples in ms, tab-free.
    var tsv: [[String]] {
        let rows =
            [("insert attributed", figures.attributed), ("insert unattributed", figures.unattributed)]
            + figures.requests + figures.commands
        return rows.map { [$0.0, $0.1.map { String($0) }.joined(separator: ",")] }
    }

    var markdown: String {
        let f = figures
        var md = [HistoryBenchmark.heading, ""]
        md.append(
            """
            Date: \(machine.date). Command: `\(command)` (release build; \(machine.processors) CPUs, \
            \(machine.cpuModel), \(machine.kernel), shared with other builds). A \(CoreReport.rows(f.rows))-row \
            file; the history built by real client writes through the socket: one update of a book of the \
            original file, then single-book inserts, each sent when the previous one was acknowledged (each its \
            own durable change set), \(CoreReport.f(f.buildSeconds, 0)) s; then \(f.kept) change sets kept \
            (seq \(f.oldestSeq)–\(f.seq), `change_log_retention` raised to keep them; the default age and \
            size limits).
            """)
        md.append("")
        md.append("### Attribution and durable insert latency (same run)")
        md.append("")
        md.append(
            """
            Two booksd on copies of the same file, one started with the benchmark-only \
            `BOOKSD_BENCHMARK_UNATTRIBUTED_WRITES=1` (client writes keep no actor), single-book inserts, one \
            on each daemon in turn (the order alternating), one connection each, in rounds; latency: request written → `ok` read \
            (after the file and the history are durable).
            """)
        md.append("")
        md.append("| booksd | inserts | p50 ms | p99 ms | per-round p50 ms |")
        md.append("|---|---:|---:|---:|---|")
        let on = Distribution(f.attributed)
        let off = Distribution(f.unattributed)
        let rounds = { (values: [Double]) in values.map(CoreReport.ms).joined(separator: ", ") }
        md.append(
            "| actor kept (as shipped) | \(on.count) | \(CoreReport.ms(on.p50)) | \(CoreReport.ms(on.p99)) | "
                + "\(rounds(f.attributedRounds)) |")
        md.append(
            "| no actor | \(off.count) | \(CoreReport.ms(off.p50)) | \(CoreReport.ms(off.p99)) | "
                + "\(rounds(f.unattributedRounds)) |")
        md.append("")
        md.append(
            "Median ratio kept / none: **\(CoreReport.f(on.p50 / off.p50, 3))** (target ≤ 1.05); median of the "
                + "per-round ratios: \(CoreReport.f(Self.medianRatio(f.attributedRounds, f.unattributedRounds), 3)).")
        md.append("")
        md.append(Self.attributionDetail(f, on: on, off: off))
        md.append("")
        md.append("### Requests on an open connection (\(f.requests.first?.1.count ?? 0) rounds, medians)")
        md.append("")
        md.append("| request | median ms | min–max ms | ratio to `ping` |")
        md.append("|---|---:|---|---:|")
        let floor = Stopwatch.median(f.requests.first?.1 ?? [])
        for (name, samples) in f.requests { md.append(Self.row(name, samples, against: floor)) }
        md.append("")
        md.append("### Whole `booksctl` runs (process start and `hello` included, output to /dev/null)")
        md.append("")
        md.append("| command | median ms | min–max ms | ratio |")
        md.append("|---|---:|---|---:|")
        let ping = Stopwatch.median(f.commands.first?.1 ?? [])
        let list = Stopwatch.median(f.commands.first { $0.0 == "`booksctl list`" }?.1 ?? [])
        for (name, samples) in f.commands {
            md.append(Self.row(name, samples, against: name.hasPrefix("`booksctl list") ? list : ping))
        }
        md.append("")
        md.append(
            "Ratios: to `booksctl ping` (the floor), and for `list --at` to `booksctl list` of the same run "
                + "(target ≤ 2).")
        md.append("")
        return md.joined(separator: "\n")
    }

    /// The paired ratio, the daemons' CPU per insert and the encoding the actor adds.
    static func attributionDetail(_ f: HistoryBenchmark.Figures, on: Distribution, off: Distribution) -> String {
        let cpu = { (values: [Double]) in values.map { CoreReport.f($0, 3) }.joined(separator: ", ") }
        let (kept, none) = (Stopwatch.median(f.attributedCPU), Stopwatch.median(f.unattributedCPU))
        let added = f.encoding.withActor - f.encoding.without
        return """
            Median of the ratios of each pair of inserts (one on each daemon, sent one after the other): \
            **\(CoreReport.f(medianRatio(f.attributed, f.unattributed), 3))**. booksd CPU per insert (all \
            threads, /proc/PID/task/*/schedstat, by round): actor kept \(cpu(f.attributedCPU)) ms, no actor \
            \(cpu(f.unattributedCPU)) ms; median ratio **\(CoreReport.f(kept / none, 3))**. Encoding one insert's \
            history journal record and change event in this process: \(CoreReport.f(f.encoding.withActor, 2)) µs \
            with the actor, \(CoreReport.f(f.encoding.without, 2)) µs without: the actor adds \
            \(CoreReport.f(added, 2)) µs a write, \(CoreReport.f(added / 1e3 / off.p50 * 100, 3)) % of the \
            p50 insert.
            """
    }

    static func row(_ name: String, _ samples: [Double], against peer: Double) -> String {
        let median = Stopwatch.median(samples)
        let range = "\(CoreReport.ms(samples.min() ?? .nan))–\(CoreReport.ms(samples.max() ?? .nan))"
        return "| \(name) | \(CoreReport.ms(median)) | \(range) | \(CoreReport.f(median / peer, 2)) |"
    }

    /// The median of `a[k] / b[k]`.
    static func medianRatio(_ a: [Double], _ b: [Double]) -> Double {
        Stopwatch.median(zip(a, b).map { $0 / $1 })
    }
}
