/// The Markdown section "## Responsiveness under durable rewrites" and the rows of
/// `results/responsiveness.tsv`.
struct ResponsivenessReport {
    let machine: MachineInfo
    let options: ResponsivenessOptions
    let results: [ResponsivenessBenchmark.Result]

    /// Milliseconds as `CoreReport` writes them; "–" when nothing was measured (NaN).
    static func ms(_ value: Double) -> String { value.isNaN ? "–" : CoreReport.ms(value) }

    /// The columns of `results/responsiveness.tsv`.
    static let resultsHeader = [
        "label", "binary", "commit", "rows", "writers", "seconds", "updates", "rewrites", "rewrites_per_second",
        "probes", "probe_failures", "p50", "p99", "max", "hand_edit_ms", "load_start", "load_end",
    ]

    /// One tab-separated row (hand edits: arrival ms, comma-separated; `none` when not reached).
    static func resultsRow(_ r: ResponsivenessBenchmark.Result, options: ResponsivenessOptions) -> [String] {
        let m = r.measurement
        return [
            r.label, r.binary, r.commit ?? "", String(options.rows), String(options.writers), String(m.seconds),
            String(m.updates.count), String(m.commits), String(m.rewritesPerSecond), String(m.probes.count),
            String(m.probeFailures), String(m.probes.p50), String(m.probes.p99), String(m.probes.max),
            m.handEdits.map { $0.arrivalMS.map { String($0) } ?? "none" }.joined(separator: ","), r.loadAtStart,
            r.loadAtEnd,
        ]
    }

    /// The run's time line: one row per probe (`probe`, start, round trip) and per acknowledged
    /// update (`update`, reply read, empty), ms after the run started.
    static func timelineRows(_ r: ResponsivenessBenchmark.Result) -> [[String]] {
        r.measurement.probeTimeline.map { [r.label, "probe", String($0.startMS), String($0.roundTripMS)] }
            + r.measurement.updateReplyTimes.map { [r.label, "update", String($0), ""] }
    }

    /// The whole section: conditions, results table, hand edits, verdict, how to build "before".
    func markdown() -> String {
        let target = CoreReport.f(ResponsivenessBenchmark.targetP99MS, 0)
        let limit = Int(ResponsivenessOptions.handEditLimitSeconds)
        var md = [ResponsivenessBenchmark.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.live.commandLine)` (release builds). Machine: "
                + "\(machine.processors) CPUs (\(machine.cpuModel)), \(machine.kernel), shared with other "
                + "engineers' builds: timings are noisy; the load averages (1/5/15 min, `/proc/loadavg`) at the "
                + "start and end of each run are in the table.")
        md.append("")
        md.append(
            "Scenario (issue 11): a generated \(CoreReport.rows(options.rows))-row file "
                + "(\(CoreReport.f(results.first?.fileMB ?? 0, 1)) MB), a private booksd on it; \(options.writers) "
                + "writer connections, each looping `update` of its own book (the name alternates, so every update "
                + "changes the file: a full rewrite + fsync) → wait for the reply → repeat, for "
                + "\(CoreReport.f(options.seconds, 0)) s; one subscriber (`hello`, then `subscribe` resuming at "
                + "the hello's epoch/seq: no snapshot); a prober that every 10–20 ms (random, on a fixed "
                + "schedule, so a probe that waits does not delay the next: stalls are sampled, not skipped) opens "
                + "a **new** connection, sends `hello` (version 1), waits for its reply, sends `ping`, waits for "
                + "its reply and closes — one sample is `connect` → `ping` reply. Every "
                + "\(CoreReport.f(min(ResponsivenessOptions.handEditSpacingSeconds, options.seconds / 2), 1)) s a "
                + "hand edit appends `hand-K|Hand edit K|Bench Hand` (open `O_APPEND`, write, close, as `echo >>` "
                + "does); arrival = `close` returned → the subscriber read a `change` event naming `hand-K` "
                + "(limit \(limit) s). Rewrites = distinct `seq`s in the `update` replies (a group commit may "
                + "carry both writers' updates). All connections are driven by one `poll` loop in one thread. "
                + "\"before\" is the same scenario, right after, on a fresh copy of the file, against a booksd "
                + "built from the commit before the engine change (see below).")
        md.append("")
        md.append(
            "| build | commit | load at start → end | full rewrite (write+fsync) ms | updates acknowledged | "
                + "rewrites | rewrites/s | update p50 ms | hello+ping probes | p50 ms | p99 ms | max ms | p99 < "
                + "\(target) ms |")
        md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in results {
            let m = r.measurement
            md.append(
                "| \(r.label) | \(r.commit.map { "`\($0)`" } ?? "–") | \(r.loadAtStart) → \(r.loadAtEnd) | "
                    + "\(Self.ms(r.fullRewriteMS)) | "
                    + "\(m.updates.count)\(m.updateFailures > 0 ? " (+\(m.updateFailures) failed)" : "") | "
                    + "\(m.commits) | \(CoreReport.f(m.rewritesPerSecond, 1)) | \(Self.ms(m.updates.p50)) | "
                    + "\(m.probes.count)\(m.probeFailures > 0 ? " (+\(m.probeFailures) failed)" : "") | "
                    + "\(Self.ms(m.probes.p50)) | \(Self.ms(m.probes.p99)) | \(Self.ms(m.probes.max)) | "
                    + "\(r.meetsTarget ? "**met**" : "**MISSED**") |")
        }
        md.append("")
        md.append("Hand edits (ms from the append's `close` to the subscriber reading its `change` event):")
        md.append("")
        md.append(
            "| build | " + (results.first?.measurement.handEdits.map(\.id) ?? []).joined(separator: " | ")
                + " | all reached |")
        md.append("|---|" + String(repeating: "---:|", count: results.first?.measurement.handEdits.count ?? 0) + "---|")
        for r in results {
            let cells = r.measurement.handEdits.map { $0.arrivalMS.map(Self.ms) ?? "**not reached in \(limit) s**" }
            md.append(
                "| \(r.label) | " + cells.joined(separator: " | ")
                    + " | \(r.measurement.allHandEditsReached ? "yes" : "**NO**") |")
        }
        md.append("")
        md.append(contentsOf: verdict())
        md.append("")
        md.append(
            "The \"before\" binary: `git -C /work/main worktree add /work/wt-before 5d99280` (detached; the commit "
                + "before the engine change), then `cd /work/wt-before && swift build -c release --product "
                + "booksd`; pass `--booksd-before /work/wt-before/.build/release/booksd` (or set "
                + "`BOOKS_BEFORE_BOOKSD` for `Benchmarks/run-all.sh`). Raw figures: "
                + "`Benchmarks/work/results/responsiveness.tsv` (each probe and update reply on a time line: "
                + "`responsiveness-timeline.tsv`); daemon logs: `Benchmarks/work/live/responsiveness-*/booksd.log`.")
        md.append("")
        return md.joined(separator: "\n")
    }

    /// The target line for the booksd under test, and the comparison with "before" when it ran.
    func verdict() -> [String] {
        guard let after = results.first else { return [] }
        let m = after.measurement
        let target = CoreReport.f(ResponsivenessBenchmark.targetP99MS, 0)
        var lines = [
            "**Target** (booksd under test): hello + ping p99 < \(target) ms while the file is under continuous "
                + "durable rewrites, and every hand edit reaches the subscriber — p99 \(Self.ms(m.probes.p99)) ms: "
                + "\(after.meetsTarget ? "**met**" : "**MISSED**")"
                + (m.probeFailures > 0 ? " (\(m.probeFailures) probes failed)" : "")
                + "; hand edits: \(m.allHandEditsReached ? "**all reached**" : "**NOT all reached**")."
        ]
        if let before = results.first(where: { $0.label == "before" }) {
            let b = before.measurement
            lines.append("")
            lines.append(
                "Before the change, the same scenario: p99 \(Self.ms(b.probes.p99)) ms, max "
                    + "\(Self.ms(b.probes.max)) ms (\(before.meetsTarget ? "met" : "missed")); hand edits "
                    + "\(b.allHandEditsReached ? "all reached" : "NOT all reached").")
        } else {
            lines.append("")
            lines.append("The \"before\" binary was not measured in this run (no `--booksd-before`).")
        }
        return lines
    }
}
