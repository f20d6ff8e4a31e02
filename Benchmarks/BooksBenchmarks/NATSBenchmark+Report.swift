/// The NATS benchmark's results files and docs section.
extension NATSBenchmark {
    func save() {
        ResultsFile.write(
            "nats-latency", header: ["rows", "edit", "subscriber", "n", "p50", "p99", "missed"],
            rows: latency.flatMap { cell in
                [("local", cell.local), ("remote", cell.remote)].map { name, samples in
                    let d = Distribution(samples)
                    return [
                        String(cell.rows), cell.kind.slug, name, String(d.count), String(d.p50), String(d.p99),
                        String(cell.missed),
                    ]
                }
            }, options: options)
        ResultsFile.write(
            "nats-fanout", header: ["subscribers", "n", "first_p50", "last_p50", "last_p99", "missed"],
            rows: fanOut.map { cell in
                let (first, last) = (Distribution(cell.first), Distribution(cell.last))
                return [
                    String(cell.subscribers), String(last.count), String(first.p50), String(last.p50),
                    String(last.p99), String(cell.missed),
                ]
            }, options: options)
        ResultsFile.write(
            "nats-writes",
            header: [
                "batch", "writers", "inserts", "inserts_per_second", "remote", "remote_per_second", "remote_books",
                "remote_books_per_second",
            ],
            rows: writes.map { cell in
                [
                    cell.batch.map(String.init) ?? "before", String(cell.writers), String(cell.inserts.completed),
                    String(cell.inserts.perSecond), String(cell.remoteReceived), String(cell.remotePerSecond),
                    String(cell.remoteBooks), String(cell.remoteBooksPerSecond),
                ]
            }, options: options)
        ResultsFile.write(
            "nats-backlog", header: ["batch", "change_sets", "received", "seconds", "per_second"],
            rows: backlog.map { cell in
                [
                    cell.batch.map(String.init) ?? "before", String(cell.changeSets), String(cell.received),
                    String(cell.seconds), String(cell.perSecond),
                ]
            }, options: options)
    }

    func markdown(machine: MachineInfo) -> String {
        func v(_ x: Double) -> String { x.isNaN ? "–" : CoreReport.ms(x) }
        var md = [Self.heading, ""]
        md.append(
            "Machine: \(machine.processors) CPUs (\(machine.cpuModel)), \(machine.kernel), shared with other work. "
                + "Date: \(machine.date). Command: `\(options.commandLine)` (release build; `BooksBenchmarks nats`). "
                + "A real `nats-server` (\(Self.serverVersion)) started by the benchmark on a loopback port, JetStream "
                + "file storage in the work directory; booksd with `nats_url` set, everything else default.")
        md.append("")
        md += Self.table(
            "**Edit → subscriber.** The same daemon and the same hand edits (see the latency section: append one "
                + "row; in-place rewrite of the whole file) reach a local subscriber (`booksctl --socket … subscribe "
                + "--json`) and a remote one (`booksctl --nats … subscribe --json`: an ordered JetStream consumer); "
                + "latency = editing call returned → the matching line read from each subscriber's stdout (both "
                + "read as their lines come, `poll`). Target: remote p50 within 1 ms of the local p50 at 10k rows.",
            [
                "rows", "edit", "N", "local p50 ms", "local p99 ms", "remote p50 ms", "remote p99 ms",
                "remote − local p50",
            ],
            latency.map { cell in
                let (l, r) = (Distribution(cell.local), Distribution(cell.remote))
                return [
                    CoreReport.rows(cell.rows), cell.kind.rawValue, String(l.count), v(l.p50), v(l.p99), v(r.p50),
                    v(r.p99), v(r.p50 - l.p50),
                ]
            })
        let one = fanOut.first { $0.subscribers == 1 }.map { Distribution($0.last).p50 } ?? .nan
        md += Self.table(
            "**Fan-out.** N core-NATS subscriptions to `books.default.changes`, all in one load-generating process "
                + "(`BooksBenchmarks nats-listen fanout`: one connection per 2,500 subscriptions, messages delivered "
                + "by the library's shared pool of 2 threads, each handler counting the message id). Latency = "
                + "append returned → the handler call of the first / the last subscription to get that change "
                + "(CLOCK_MONOTONIC in both processes); 10k-row file, one warm-up edit per N.",
            ["subscribers", "N", "first p50 ms", "last p50 ms", "last p99 ms", "last p50 ÷ 1 subscriber's", "missed"],
            fanOut.map { cell in
                let (first, last) = (Distribution(cell.first), Distribution(cell.last))
                return [
                    CoreReport.rows(cell.subscribers), String(last.count), v(first.p50), v(last.p50), v(last.p99),
                    CoreReport.f(last.p50 / one, 1) + "×", String(cell.missed),
                ]
            })
        md += Self.table(
            "**32 writers.** 32 socket connections, each with one insert of one book in flight (closed loop, the "
                + "write benchmark's loop) for the stated time on a 10k-row file; a remote subscriber (an ordered "
                + "JetStream consumer, `BooksBenchmarks nats-listen count`) counts the change sets and the books in "
                + "them (booksd puts concurrent inserts that arrive together into one change set). Remote rates = "
                + "change sets (books) received ÷ (last received − first insert sent); lag = last received − last insert "
                + "acknowledged. `nats_batch` 256 is the default (a batch's bucket updates, then its stream "
                + "messages, sent without waiting and acknowledged together); `nats_batch = 1` publishes change set "
                + "by change set, two round trips each; `before` (only with `--nats-booksd-before PATH`) is an older "
                + "booksd that waited for one round trip per bucket update plus one per change set.",
            [
                "nats_batch", "writers", "inserts acknowledged", "inserts/s", "p50 ms", "remote change sets",
                "remote change sets/s", "remote books", "remote books/s", "lag ms",
            ],
            writes.map { cell in
                [
                    cell.batch.map(String.init) ?? "before (one round trip per bucket put and per change set)",
                    String(cell.writers), String(cell.inserts.completed), CoreReport.f(cell.inserts.perSecond, 0),
                    v(cell.inserts.latency.p50), String(cell.remoteReceived),
                    CoreReport.f(cell.remotePerSecond, 0), String(cell.remoteBooks),
                    CoreReport.f(cell.remoteBooksPerSecond, 0), CoreReport.f(cell.lagMS, 0),
                ]
            })
        md += Self.table(
            "**Publishing a backlog.** booksd and nats-server up (the initial snapshot marker stored), then "
                + "nats-server killed, \(backlogSize) single-book inserts made one at a time (one change set each, "
                + "held in the publisher's buffer), nats-server started again; an ordered consumer from the stream's "
                + "start times the arrival of the first to the last of those change sets: the publisher's own rate, "
                + "which `nats_batch` changes (with live writers it keeps up either way, see above). The first "
                + "batch's own publishing time is not in that span (the reconnect wait before it would swamp it), "
                + "so with batches the rate is overstated by up to one batch in (change sets ÷ `nats_batch`): "
                + "1 in 8 at 2,000 and 256; the quick run's 300 fit in one batch and its figure means nothing.",
            ["nats_batch", "change sets", "received", "first → last ms", "change sets/s"],
            backlog.map { cell in
                [
                    cell.batch.map(String.init) ?? "before (one round trip per bucket put and per change set)",
                    String(cell.changeSets), String(cell.received), CoreReport.f(cell.seconds * 1000, 0),
                    CoreReport.f(cell.perSecond, 0),
                ]
            })
        return md.joined(separator: "\n")
    }

    /// `intro`, then a Markdown table (the second column left-aligned when it is text), then a blank line.
    static func table(_ intro: String, _ columns: [String], _ rows: [[String]]) -> [String] {
        let alignment = columns.indices.map { $0 == 1 && columns[1] == "edit" ? "---" : "---:" }
        return [
            intro, "", "| " + columns.joined(separator: " | ") + " |", "|" + alignment.joined(separator: "|") + "|",
        ]
            + rows.map { "| " + $0.joined(separator: " | ") + " |" } + [""]
    }

    static var serverVersion: String {
        let output = PeerRun.run(["nats-server", "--version"]).output
        return output.split(separator: "\n").first.map(String.init) ?? "nats-server"
    }
}
