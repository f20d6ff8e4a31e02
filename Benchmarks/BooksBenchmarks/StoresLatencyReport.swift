/// The markdown and TSV of `StoresLatency`'s figures.
enum StoresLatencyReport {
    /// The ratio target: p50 with many stores within this factor of the single-store daemon's.
    static let target = 1.5

    static func markdown(_ f: StoresLatency.Figures, stores: Int, rows: Int, options: LiveOptions) -> [String] {
        let rowsOut: [(String, Distribution)] = [
            ("1 store (`--file`, peer)", f.single), ("\(stores) stores (`--dir`), one edited", f.many),
            ("\(stores) stores + one of \(options.quick ? "100k" : "1M") rows rewritten in a loop", f.busy),
        ]
        let base = f.single.p50
        ResultsFile.write(
            "stores-latency", header: ["phase", "samples", "p50_ms", "p90_ms", "max_ms", "ratio_p50"],
            rows: rowsOut.map { name, d in
                [
                    name, String(d.count), String(d.p50), String(d.p90), String(d.sorted.last ?? .nan),
                    String(d.p50 / base),
                ]
            }, options: options)
        var md = [
            "Edit latency: an appended row in one store of \(rows) rows, from the write's return until a protocol-2 "
                + "subscriber of every store (`\"stores\":[\"*\"]`, no snapshot) reads the change; "
                + "\(f.single.count) timed edits per phase, 20 ms apart. Target: p50 ≤ \(target) × the single-store "
                + "daemon's, measured in the same run.",
            "",
            "| daemon | p50 ms | p90 ms | max ms | p50 / single |",
            "|---|---:|---:|---:|---:|",
        ]
        for (name, d) in rowsOut {
            guard !d.isEmpty, !base.isNaN else {
                md.append("| \(name) | no sample (see the benchmark's stderr) | | | |")
                continue
            }
            md.append(
                "| \(name) | \(CoreReport.ms(d.p50)) | \(CoreReport.ms(d.p90)) | "
                    + "\(CoreReport.ms(d.sorted.last ?? .nan)) | \(CoreReport.f(d.p50 / base, 2)) |")
        }
        md.append("")
        md.append(
            "The big store was rewritten completely \(f.rewrites) times during its phase (2 cores shared with "
                + "other sessions' builds).")
        md.append("")
        return md
    }
}
