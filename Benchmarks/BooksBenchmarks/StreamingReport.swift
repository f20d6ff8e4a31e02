/// The "## Live: subscriber and list cost" section and `results/stream.tsv`.
extension StreamingBenchmark {
    func write(_ rows: [SizeRow], _ load: LoadRow?, _ machine: MachineInfo) {
        let f = CoreReport.f
        let ms = CoreReport.ms
        func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : Stopwatch.median(values) }
        ResultsFile.write(
            "stream",
            header: [
                "rows", "file_mb", "ready_ms_median", "ready_ms_max", "subscriber_hwm_mb", "change_ms_median",
                "list_ms_median", "list_hwm_mb", "python_read_parse_ms", "python_hwm_mb", "daemon_idle_mb",
            ],
            rows: rows.map { r in
                [
                    String(r.rows), String(r.fileMB), String(median(r.readyMS)), String(r.readyMS.max() ?? .nan),
                    String(r.subscriberHWMMB.max() ?? .nan), String(median(r.changeMS)), String(median(r.listMS)),
                    String(r.listHWMMB), String(r.pythonParseMS), String(r.pythonHWMMB), String(r.daemonIdleMB),
                ]
            }, options: options)
        var md = [Self.heading, ""]
        md.append(
            """
            Date: \(machine.date). Command: `\(options.commandLine)` (release build, \(machine.processors) × \(machine.cpuModel), \(machine.kernel)). \
            `booksctl subscribe --json` (no mirror): ready = from `posix_spawn` until booksd counts it as a \
            subscriber (`status` polled every 1 ms), 5 starts per size; "write → printed" = a client insert until \
            booksctl printed its line. `booksctl list --json > /dev/null` of every book: wall time, median of 3; \
            the Python peer reads and parses the same file into a dict (`parse_peer.py`, median of 3). \
            Subscriber VmHWM is its peak resident size (max of the 5 runs), read after its line was printed; \
            "anon" is its RssAnon then (the rest are the shared libraries' file pages).
            """)
        md.append("")
        md.append(
            "| rows | file MB | subscribe ready ms (median / max) | subscriber VmHWM MB (anon) | write → printed ms "
                + "| list --json s | list client VmHWM MB | Python read+parse s | booksd idle MB |")
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows {
            md.append(
                "| \(CoreReport.rows(r.rows)) | \(f(r.fileMB, 1)) | \(ms(median(r.readyMS))) / "
                    + "\(ms(r.readyMS.max() ?? .nan)) | \(f(r.subscriberHWMMB.max() ?? .nan, 1)) "
                    + "(\(f(r.subscriberAnonMB.max() ?? .nan, 1))) | "
                    + "\(ms(median(r.changeMS))) | \(f(median(r.listMS) / 1000, 2)) | \(f(r.listHWMMB, 1)) | "
                    + "\(f(r.pythonParseMS / 1000, 2)) | \(f(r.daemonIdleMB, 1)) |")
        }
        md.append("")
        if let load, let last = rows.last {
            md.append(
                """
                booksd at \(CoreReport.rows(load.rows)) rows (\(f(load.fileMB, 1)) MB file) while 10 \
                `booksctl subscribe --json --initial` receive and print every book and one `booksctl list --json` \
                runs (served in \(f(load.servedSeconds, 1)) s\(load.complete ? "" : ", NOT complete")). VmHWM is \
                reset (`clear_refs`) after loading, so "serving peak" is the peak while serving; "load peak" is the \
                peak of the start.
                """)
            md.append("")
            md.append("| booksd | MB | × file |")
            md.append("|---|---:|---:|")
            md.append("| idle (loaded) | \(f(load.idleMB, 1)) | \(f(load.idleMB / load.fileMB, 2)) |")
            md.append(
                "| load peak (VmHWM at start) | \(f(load.loadPeakMB, 1)) | \(f(load.loadPeakMB / load.fileMB, 2)) |")
            md.append("| serving peak (VmHWM) | \(f(load.peakMB, 1)) | \(f(load.peakMB / load.fileMB, 2)) |")
            md.append(
                "| 1 s after they ended | \(f(load.afterMB, 1)) | \(f(load.afterMB / load.fileMB, 2)) "
                    + "(\(f((load.afterMB / load.idleMB - 1) * 100, 1)) % over idle) |")
            md.append("")
            let subscriber = last.subscriberHWMMB.max() ?? .nan
            md.append("The whole cost of a subscriber at \(CoreReport.rows(load.rows)) rows (resident MB):")
            md.append("")
            md.append("| who | idle | peak |")
            md.append("|---|---:|---:|")
            md.append(
                "| booksd + `booksctl subscribe --json` | \(f(load.idleMB + subscriber, 1)) "
                    + "| \(f(max(load.loadPeakMB, load.peakMB) + subscriber, 1)) |")
            md.append(
                "| booksd + `booksctl subscribe --json --initial` (mirror) | \(f(load.idleMB + load.initialSubscriberHWMMB, 1)) "
                    + "| \(f(max(load.loadPeakMB, load.peakMB) + load.initialSubscriberHWMMB, 1)) |")
            md.append(
                "| Python peer (one process holding the dict) | \(f(last.pythonHWMMB, 1)) | \(f(last.pythonHWMMB, 1)) |"
            )
            md.append("")
            md.append(contentsOf: targets(rows, load))
        }
        ResultsFile.publish(heading: Self.heading, markdown: md.joined(separator: "\n"), options: options)
    }

    /// The streaming targets, each hit or MISS.
    private func targets(_ rows: [SizeRow], _ load: LoadRow) -> [String] {
        let f = CoreReport.f
        var lines = ["| target (issue 12) | measured | verdict |", "|---|---|---|"]
        func verdict(_ hit: Bool) -> String { hit ? "**hit**" : "**MISS**" }
        let hwm = rows.compactMap { $0.subscriberHWMMB.max() }.max() ?? .nan
        lines.append("| `subscribe --json` resident ≤ 16 MB | max \(f(hwm, 1)) MB | \(verdict(hwm <= 16)) |")
        let ready = rows.map {
            "\(CoreReport.rows($0.rows)): \(CoreReport.ms($0.readyMS.isEmpty ? .nan : Stopwatch.median($0.readyMS))) ms"
        }
        let readyHit = rows.allSatisfy { !$0.readyMS.isEmpty && Stopwatch.median($0.readyMS) <= 50 }
        lines.append(
            "| ready within 50 ms of exec, any size (median) | \(ready.joined(separator: ", ")) | \(verdict(readyHit)) |"
        )
        let ratio = load.peakMB / load.fileMB
        lines.append(
            "| booksd peak ≤ 2.5× file (10 `--initial` + 1 list) | \(f(ratio, 2))× | \(verdict(ratio <= 2.5 && load.complete)) |"
        )
        let after = load.afterMB / load.idleMB - 1
        lines.append("| afterwards within 10 % of idle | \(f(after * 100, 1)) % | \(verdict(after <= 0.10)) |")
        if let last = rows.last, !last.listMS.isEmpty {
            let s = Stopwatch.median(last.listMS) / 1000
            lines.append(
                "| `list --json` of \(CoreReport.rows(last.rows)) books ≤ 1.5 s (Python parse: \(f(last.pythonParseMS / 1000, 2)) s) "
                    + "| \(f(s, 2)) s | \(verdict(s <= 1.5)) |")
        }
        lines.append("")
        return lines
    }
}
