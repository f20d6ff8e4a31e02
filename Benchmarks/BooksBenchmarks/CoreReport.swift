/// The Markdown section "## Core: parse and diff".
struct CoreReport: Sendable {
    static let heading = "## Core: parse and diff"

    /// Targets from the benchmark issue, judged at 1M rows.
    static let parseTarget = 5.0, editTarget = 20.0, memoryTarget = 2.0

    var machine: MachineInfo
    var command: String
    var quick: Bool
    var sizes: [SizeResult]
    var memory: MemoryResult?

    func markdown() -> String {
        var md = [Self.heading, ""]
        md.append(
            "Machine: \(machine.processors) CPUs (\(machine.cpuModel)), \(machine.kernel), shared with other work: "
                + "figures are noisy, compare ratios measured in the same run. Date: \(machine.date).")
        md.append("")
        md.append(
            "Command: `\(command)` (release build; medians of N runs, N = 7 up to 100k rows, 5 at 1M"
                + (quick ? "; this was a `--quick` run: 1k and 10k rows, N = 3" : "") + ").")
        md.append(
            "CI smoke run: `Benchmarks/run-core.sh --quick --no-docs` (1k and 10k rows, N = 3, a few seconds "
                + "after the build; `--no-docs` leaves this file alone).")
        md.append(
            "Files: generated UUID ids, titles and authors mostly ASCII with accented Latin, CJK and emoji "
                + "(deterministic seed); Python peer: `Benchmarks/peers/parse_peer.py` (dict comprehension), one "
                + "peer process right after each Swift run, timed after one untimed warm-up parse."
        )
        md.append("")
        md.append("### Full parse")
        md.append("")
        md.append(
            """
            | rows | file MB | N | Swift parse ms | Python parse ms | Python/Swift | CPU ms Swift / Python | CPU \
            Python/Swift | Swift read+parse ms | Python read+parse ms | Python/Swift |
            """
        )
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for s in sizes {
            md.append(
                "| \(Self.rows(s.rows)) | \(Self.f(Double(s.fileBytes) / 1_048_576, 1)) | \(s.runs) | "
                    + "\(Self.ms(s.swiftParseMS)) | \(s.pythonParseMS.map(Self.ms) ?? "–") | "
                    + "\(s.parseRatio.map { Self.f($0, 1) + "×" } ?? "–") | \(Self.ms(s.swiftParseCPUMS)) / "
                    + "\(s.pythonParseCPUMS.map(Self.ms) ?? "–") | "
                    + "\(s.parseCPURatio.map { Self.f($0, 1) + "×" } ?? "–") | \(Self.ms(s.swiftReadParseMS)) | "
                    + "\(s.pythonReadParseMS.map(Self.ms) ?? "–") | "
                    + "\(s.readParseRatio.map { Self.f($0, 1) + "×" } ?? "–") |")
        }
        md.append("")
        md.append("### One-row edit: `update(to:)` (incremental window) vs `updateFully(to:)` (re-parse + diff by id)")
        md.append("")
        md.append("| rows | edit | incremental ms | full re-parse+diff ms | full/incremental | path taken |")
        md.append("|---:|---|---:|---:|---:|---|")
        for s in sizes {
            for e in s.edits {
                md.append(
                    "| \(Self.rows(s.rows)) | \(e.kind.rawValue) | \(Self.ms(e.incrementalMS)) | "
                        + "\(Self.ms(e.fullMS)) | \(Self.f(e.ratio, 1))× | \(e.path) |")
            }
        }
        md.append("")
        if let m = memory {
            md.append("### Peak memory at \(Self.rows(m.rows)) rows (fresh process: read, parse, hold)")
            md.append("")
            md.append("| file MB | Swift peak RSS MB | Swift RSS / file | Python peak RSS MB | Python/Swift |")
            md.append("|---:|---:|---:|---:|---:|")
            md.append(
                "| \(Self.f(m.fileMB, 1)) | \(Self.f(m.swiftMB, 1)) | \(Self.f(m.ratioToFile, 2))× | "
                    + "\(m.pythonMB.map { Self.f($0, 1) } ?? "–") | "
                    + "\(m.pythonMB.map { Self.f($0 / m.swiftMB, 1) + "×" } ?? "–") |"
            )
            md.append("")
            md.append(
                "Peak RSS is VmHWM from /proc/self/status (Swift: hidden `core-rss FILE` child, "
                    + "baseline before reading \(Self.f(Double(m.swiftBaselineKB) / 1024, 1)) MB; Python: "
                    + "`parse_peer.py FILE --rss`)."
            )
            md.append("")
        }
        md.append(contentsOf: targets())
        return md.joined(separator: "\n")
    }

    private func targets() -> [String] {
        guard let big = sizes.first(where: { $0.rows == 1_000_000 }) else {
            return ["Targets (judged at 1M rows): not evaluated in this run."]
        }
        var lines = ["### Targets at 1M rows", ""]
        func verdict(_ hit: Bool) -> String { hit ? "**hit**" : "**MISS**" }
        if let ratio = big.parseRatio {
            lines.append(
                "- Full parse ≥ \(Self.f(Self.parseTarget, 0))× faster than Python (wall): "
                    + "\(Self.f(ratio, 1))× — \(verdict(ratio >= Self.parseTarget))"
                    + (big.parseCPURatio.map { " (CPU time: \(Self.f($0, 1))×)" } ?? ""))
        }
        if let rename = big.edits.first(where: { $0.kind == .rename }) {
            lines.append(
                "- One-row edit diffed ≥ \(Self.f(Self.editTarget, 0))× faster than a full re-parse: "
                    + "\(Self.f(rename.ratio, 1))× — "
                    + "\(verdict(rename.ratio >= Self.editTarget)) (other edits: "
                    + big.edits.filter { $0.kind != .rename }.map { "\($0.kind.rawValue) \(Self.f($0.ratio, 1))×" }
                    .joined(separator: ", ") + ")")
        }
        if let m = memory, m.rows == 1_000_000 {
            lines.append(
                """
                - RSS ≤ \(Self.f(Self.memoryTarget, 0))× file size: \(Self.f(m.ratioToFile, 2))× — \
                \(verdict(m.ratioToFile <= Self.memoryTarget))
                """
            )
        }
        lines.append("")
        return lines
    }

    static func rows(_ n: Int) -> String {
        n >= 1_000_000 ? "\(n / 1_000_000)M" : (n >= 1000 ? "\(n / 1000)k" : "\(n)")
    }

    static func ms(_ value: Double) -> String { value < 1 ? f(value, 3) : (value < 100 ? f(value, 2) : f(value, 0)) }

    /// `value` with `digits` decimals (no Foundation formatting).
    static func f(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "–" }  // e.g. a ratio to a count that was not run
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = abs(scaled % Int(scale))
        guard digits > 0 else { return String(whole) }
        let text = String(fraction)
        return (scaled < 0 && whole == 0 ? "-" : "") + "\(whole)." + String(repeating: "0", count: digits - text.count)
            + text
    }
}
