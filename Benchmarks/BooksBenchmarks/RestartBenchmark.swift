import BooksTestSupport
import Glibc

/// Part of `BooksBenchmarks startup`: a daemon with saved history is stopped (SIGTERM
/// or kill -9), 100 rows are edited while it is down, and it is started again — exec → ready,
/// checked to have resumed its epoch with the edits as the next seq. A cold start (no saved
/// history: new epoch, first snapshot written) of the same file in the same run is the reference.
struct RestartBenchmark {
    static let heading = "## Live: restart with saved history"

    let options: LiveOptions
    var rows: Int { options.quick ? 10_000 : 1_000_000 }
    let liveEdits = 20
    let downEdits = 100

    enum Stop: String, CaseIterable {
        case sigterm = "SIGTERM"
        case sigkill = "kill -9"
    }

    struct Run {
        var coldMS: Double
        var restartMS: Double
        var restartCPUMS: Double
        var resumed: Bool
    }

    func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/restart"
        FileBytes.makeDirectory(directory)
        var results: [Stop: [Run]] = [:]
        for stop in Stop.allCases {
            for k in 0..<3 {
                Console.error("• restart: \(CoreReport.rows(rows)) rows, \(stop.rawValue), run \(k + 1)/3")
                guard let run = once(directory: directory, stop: stop) else { exit(1) }
                results[stop, default: []].append(run)
            }
        }
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. A \(CoreReport.rows(rows))-row file, no saved "
                + "history: cold start (new epoch, first snapshot written just after ready; ready = `posix_spawn` → `hello` answered). "
                + "Then \(liveEdits) appends while it runs (journal records), stop, \(downEdits) rows renamed while it "
                + "is down (one atomic replace), start again: ready, and checked that the epoch is the same and the "
                + "edits are exactly the next seq. 3 runs per stop (fresh file and state each run).")
        md.append("")
        md.append(
            "| rows | stop | cold start ms (median) | restart to ready ms (median) | all restarts ms | booksd CPU ms to ready (median) | resumed | target ≤ 1000 ms |"
        )
        md.append("|---:|---|---:|---:|---|---:|---|---|")
        var tsv: [[String]] = []
        for stop in Stop.allCases {
            let runs = results[stop] ?? []
            let cold = Stopwatch.median(runs.map(\.coldMS))
            let restart = Stopwatch.median(runs.map(\.restartMS))
            let cpu = Stopwatch.median(runs.map(\.restartCPUMS))
            let resumed = runs.allSatisfy(\.resumed)
            md.append(
                """
                | \(CoreReport.rows(rows)) | \(stop.rawValue) | \(CoreReport.ms(cold)) | \(CoreReport.ms(restart)) | \
                \(runs.map { CoreReport.ms($0.restartMS) }.joined(separator: ", ")) | \(CoreReport.ms(cpu)) | \
                \(resumed ? "yes" : "**NO**") | \
                \(restart <= 1000 && resumed ? "met" : "**MISSED**") |
                """)
            tsv.append([
                String(rows), stop.rawValue, String(cold), String(restart),
                runs.map { String($0.restartMS) }.joined(separator: ","), String(cpu), resumed ? "yes" : "no",
            ])
        }
        md.append("")
        ResultsFile.write(
            "restart",
            header: [
                "rows", "stop", "cold_ms_median", "restart_ms_median", "restart_ms_all", "restart_cpu_ms_median",
                "resumed",
            ],
            rows: tsv, options: options)
        ResultsFile.publish(heading: Self.heading, markdown: md.joined(separator: "\n"), options: options)
    }

    /// One cold start, live edits, stop, down-time edits, timed restart.
    func once(directory: String, stop: Stop) -> Run? {
        let path = directory + "/books.txt"
        TestFiles.removeTree(directory + "/.books.txt.history")
        guard var file = try? LiveBookFile(path: path, rows: rows) else { return nil }
        let socket = directory + "/booksd.sock"
        let log = directory + "/booksd.log"
        guard
            let cold = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: path, socket: socket, logPath: log),
            let client = LineClient.connectIfListening(socket), let start = client.helloPoint()
        else { return nil }
        client.close()
        for k in 1...liveEdits {  // one at a time: each is its own change set (journal record)
            _ = file.perform(.append)
            guard waitForSeq(start.seq + UInt64(k), socket: socket) else {
                Console.error("the live edits did not arrive; see \(log)")
                return nil
            }
        }
        if stop == .sigterm { _ = cold.stop() } else { _ = cold.kill() }
        // 100 rows renamed while booksd is down: "X" put before each name (valid UTF-8 either way).
        var edited = file.content
        var lineStarts = [0]
        lineStarts.reserveCapacity(rows)
        for (k, byte) in edited.enumerated() where byte == 10 && k + 1 < edited.count { lineStarts.append(k + 1) }
        let step = max(1, lineStarts.count / downEdits)
        for index in stride(from: (downEdits - 1) * step, through: 0, by: -step) {
            edited.insert(UInt8(ascii: "X"), at: lineStarts[index] + 37)
        }
        guard (try? FileBytes.write(edited, to: path)) != nil,
            let again = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: path, socket: socket, logPath: log, keepHistory: true)
        else { return nil }
        let cpu = again.cpuMS
        defer { _ = again.stop() }
        let point = LineClient.connectIfListening(socket).flatMap { client in
            defer { client.close() }
            return client.helloPoint()
        }
        let resumed = point?.epoch == start.epoch && point?.seq == start.seq + UInt64(liveEdits) + 1
        if !resumed { Console.error("  NOT resumed: \(String(describing: point)) vs \(start); see \(log)") }
        return Run(coldMS: cold.readyMS, restartMS: again.readyMS, restartCPUMS: cpu, resumed: resumed)
    }

    func waitForSeq(_ seq: UInt64, socket: String) -> Bool {
        for _ in 0..<2000 {
            if let client = LineClient.connectIfListening(socket) {
                defer { client.close() }
                if let point = client.helloPoint(), point.seq >= seq { return true }
            }
            usleep(2_000)
        }
        return false
    }
}
