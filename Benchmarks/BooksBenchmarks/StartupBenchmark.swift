import BooksTestSupport
import Glibc

/// `BooksBenchmarks startup`: exec → ready (the socket accepts a connection and answers `hello`)
/// at the largest size, 3 starts, with VmRSS once ready.
struct StartupBenchmark {
    static let heading = "## Live: start-up"

    let options: LiveOptions
    var rows: Int { options.quick ? 10_000 : 1_000_000 }

    init(options: LiveOptions) { self.options = options }

    func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/startup"
        FileBytes.makeDirectory(directory)
        guard (try? LiveBookFile(path: directory + "/books.txt", rows: rows)) != nil else { exit(1) }
        var ready: [Double] = []
        var rss: [Double] = []
        for k in 0..<3 {
            Console.error("• startup: \(CoreReport.rows(rows)) rows, run \(k + 1)/3")
            TestFiles.removeTree(directory + "/.books.txt.history")  // a cold start: no saved history
            guard
                let daemon = DaemonProcess.benchmark(
                    binDirectory: options.binDirectory, file: directory + "/books.txt",
                    socket: directory + "/booksd.sock", logPath: directory + "/booksd.log")
            else { exit(1) }
            ready.append(daemon.readyMS)
            rss.append(Double(daemon.rssKB) / 1024)
            daemon.stop()
        }
        let readyMedian = Stopwatch.median(ready)
        let rssMedian = Stopwatch.median(rss)
        Console.error("  ready \(ready.map { CoreReport.ms($0) }) ms")
        ResultsFile.write(
            "startup", header: ["rows", "ready_ms_median", "ready_ms_all", "rss_mb"],
            rows: [
                [String(rows), String(readyMedian), ready.map { String($0) }.joined(separator: ","), String(rssMedian)]
            ],
            options: options)
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. `booksd --file F --socket S` on a "
                + "\(CoreReport.rows(rows))-row file (page cache warm), cold: its saved history is removed "
                + "before each start (a new epoch: its first snapshot is written just after ready); ready = from "
                + "`posix_spawn` until a connection to the socket answers `hello` (polled every 1 ms), 3 starts. "
                + "Restarts with saved history: next section.")
        md.append("")
        md.append("| rows | ready ms (median) | all runs ms | VmRSS when ready MB |")
        md.append("|---:|---:|---|---:|")
        md.append(
            """
            | \(CoreReport.rows(rows)) | \(CoreReport.ms(readyMedian)) | \
            \(ready.map { CoreReport.ms($0) }.joined(separator: ", ")) | \(CoreReport.f(rssMedian, 1)) |
            """
        )
        md.append("")
        ResultsFile.publish(heading: Self.heading, markdown: md.joined(separator: "\n"), options: options)
    }
}
