/// `BooksBenchmarks targets`: judges the issue's targets from `work/results/*.tsv` of this run
/// and writes "## Live: targets" (every target listed, hit or MISS, never hidden).
struct TargetsReport {
    static let heading = "## Live: targets"

    struct Verdict: Sendable, Equatable {
        var target: String
        var measured: String
        var hit: Bool?  // nil: not measured in this run
    }

    let options: LiveOptions

    func run() {
        let verdicts = Self.judge(
            latency: ResultsFile.read("latency", options: options), rss: ResultsFile.read("rss", options: options),
            fanout: ResultsFile.read("fanout", options: options), writes: ResultsFile.read("writes", options: options),
            startup: ResultsFile.read("startup", options: options))
        var md = [Self.heading, "", "Judged from the figures above (same run). Command: `\(options.commandLine)`.", ""]
        md.append("| target | measured | verdict |")
        md.append("|---|---|---|")
        for v in verdicts {
            md.append(
                "| \(v.target) | \(v.measured) | \(v.hit.map { $0 ? "**hit**" : "**MISS**" } ?? "not measured") |")
        }
        md.append("")
        ResultsFile.publish(heading: Self.heading, markdown: md.joined(separator: "\n"), options: options)
    }

    static func judge(
        latency: [[String: String]], rss: [[String: String]], fanout: [[String: String]],
        writes: [[String: String]], startup: [[String: String]]
    ) -> [Verdict] {
        func num(_ row: [String: String]?, _ key: String) -> Double? {
            row?[key].flatMap(Double.init).flatMap { $0.isNaN ? nil : $0 }
        }
        func cell(_ peer: String, _ rows: Int, _ edit: String) -> [String: String]? {
            latency.first { $0["peer"] == peer && $0["rows"] == String(rows) && $0["edit"] == edit }
        }
        let edits = LiveEditKind.allCases.map(\.slug)
        var out: [Verdict] = []
        // 1. p50 within 1 ms of the inotifywait floor at 1k and 10k rows.
        for rows in [1_000, 10_000] {
            for edit in edits {
                let target = "\(CoreReport.rows(rows)) \(edit): booksd p50 ≤ inotifywait p50 + 1 ms"
                guard let b = num(cell("booksd", rows, edit), "p50"),
                    let f = num(cell("inotifywait", rows, edit), "p50")
                else {
                    out.append(Verdict(target: target, measured: "–", hit: nil))
                    continue
                }
                out.append(
                    Verdict(
                        target: target,
                        measured: "\(CoreReport.ms(b)) vs \(CoreReport.ms(f)) ms (+\(CoreReport.ms(b - f)))",
                        hit: b - f <= 1))
            }
        }
        // 2. ≥ 30× (100k) and ≥ 50× (1M) faster than the best peer, at p50 and p99.
        for (rows, factor) in [(100_000, 30.0), (1_000_000, 50.0)] {
            for edit in edits {
                for p in ["p50", "p99"] {
                    let target = "\(CoreReport.rows(rows)) \(edit) \(p): best peer / booksd ≥ \(Int(factor))×"
                    let peers = ["watchdog", "watchman"].compactMap { num(cell($0, rows, edit), p) }
                    guard let b = num(cell("booksd", rows, edit), p), let best = peers.min(), b > 0 else {
                        out.append(Verdict(target: target, measured: "–", hit: nil))
                        continue
                    }
                    out.append(
                        Verdict(
                            target: target,
                            measured:
                                "\(CoreReport.ms(best)) / \(CoreReport.ms(b)) ms = \(CoreReport.f(best / b, 1))×",
                            hit: best / b >= factor))
                }
            }
        }
        // 3. RSS at 1M ≤ 1/5 of the Python peer's.
        let big = rss.first { $0["rows"] == "1000000" }
        if let d = num(big, "booksd_kb"), let p = num(big, "watchdog_kb"), d > 0, p > 0 {
            out.append(
                Verdict(
                    target: "1M VmRSS: booksd ≤ 1/5 of the Python (watchdog) peer",
                    measured:
                        "\(CoreReport.f(d / 1024, 1)) vs \(CoreReport.f(p / 1024, 1)) MB (1/\(CoreReport.f(p / d, 1)))",
                    hit: d * 5 <= p))
        } else {
            out.append(
                Verdict(target: "1M VmRSS: booksd ≤ 1/5 of the Python (watchdog) peer", measured: "–", hit: nil))
        }
        // 4. The last of 1,000 subscribers within 10× one subscriber, of 10,000 within 60×; the first
        //    change after joining within 2× a later one.
        let one = fanout.first { $0["subscribers"] == "1" }
        for (n, limit) in [(1_000, 10.0), (10_000, 60.0)] {
            let many = fanout.first { $0["subscribers"] == String(n) }
            if let a = num(one, "last_p50"), let m = num(many, "last_p50") {
                out.append(
                    Verdict(
                        target: "\(n) subscribers: last notified (p50) ≤ \(Int(limit))× one subscriber (p50)",
                        measured: "\(CoreReport.ms(m)) vs \(CoreReport.ms(a)) ms = \(CoreReport.f(m / a, 1))×",
                        hit: m <= limit * a))
            } else {
                out.append(
                    Verdict(
                        target: "\(n) subscribers: last notified ≤ \(Int(limit))× one subscriber", measured: "–",
                        hit: nil))
            }
        }
        for row in fanout {
            guard let n = row["subscribers"], let first = num(row, "first_change_ms"), let later = num(row, "last_p50")
            else { continue }
            out.append(
                Verdict(
                    target: "\(n) subscribers: first change after joining ≤ 2× a later one (p50)",
                    measured:
                        "\(CoreReport.ms(first)) vs \(CoreReport.ms(later)) ms = \(CoreReport.f(first / later, 2))×",
                    hit: first <= 2 * later))
        }
        // 5. 32 writers ≥ 5× one writer; 6. a single insert at 1M well under (≤ 1/10 of) a full rewrite.
        for rows in Set(writes.compactMap { $0["rows"] }).compactMap(Int.init).sorted() {
            let w1 = writes.first { $0["rows"] == String(rows) && $0["writers"] == "1" }
            let w32 = writes.first { $0["rows"] == String(rows) && $0["writers"] == "32" }
            if let a = num(w1, "per_second"), let b = num(w32, "per_second"), a > 0 {
                out.append(
                    Verdict(
                        target: "\(CoreReport.rows(rows)) rows: 32 writers ≥ 5× inserts/s of 1 writer",
                        measured: "\(CoreReport.f(b, 1)) vs \(CoreReport.f(a, 1))/s = \(CoreReport.f(b / a, 1))×",
                        hit: b >= 5 * a))
            }
            if rows == 1_000_000, let p50 = num(w1, "p50"), let rewrite = num(w1, "rewrite_ms") {
                out.append(
                    Verdict(
                        target: "1M rows: one durable insert (p50, 1 writer) ≤ 1/10 of a full rewrite (write+fsync)",
                        measured: "\(CoreReport.ms(p50)) vs \(CoreReport.ms(rewrite)) ms", hit: p50 * 10 <= rewrite))
            }
        }
        if !writes.contains(where: { $0["rows"] == "1000000" }) {
            out.append(
                Verdict(target: "1M rows: one durable insert well under a full rewrite", measured: "–", hit: nil))
        }
        // 7. Ready at 1M in under 0.5 s.
        let s = startup.first
        if let ready = num(s, "ready_ms_median"), s?["rows"] == "1000000" {
            out.append(
                Verdict(
                    target: "1M rows: exec → ready < 500 ms", measured: "\(CoreReport.ms(ready)) ms (median of 3)",
                    hit: ready < 500))
        } else {
            out.append(Verdict(target: "1M rows: exec → ready < 500 ms", measured: "–", hit: nil))
        }
        return out
    }
}
