import BooksTestSupport
import Glibc

/// `BooksBenchmarks responsiveness`: while W clients keep an N-row file under
/// continuous durable rewrites (`update`s, each a full rewrite + fsync), new connections' `hello`
/// + `ping` round trips are timed and hand edits must still reach a subscriber. Runs the booksd
/// under test, then (with `--booksd-before`) the booksd from before the engine change on a fresh
/// copy of the file, and writes "## Responsiveness under durable rewrites".
struct ResponsivenessBenchmark {
    static let heading = "## Responsiveness under durable rewrites"
    /// The target for the hello + ping round trip, p99.
    static let targetP99MS = 5.0

    /// One booksd's run: what was measured and the conditions it was measured in.
    struct Result: Sendable {
        /// "after" (the booksd under test) or "before".
        var label: String
        /// The booksd's path.
        var binary: String
        /// `git rev-parse --short HEAD` where the binary was built, when it can be told.
        var commit: String?
        /// Size of the generated file.
        var fileMB: Double
        /// Spawn → the first `hello` answered.
        var readyMS: Double
        /// write + fsync of the whole file to a new file, median of 3, just before the run.
        var fullRewriteMS: Double
        /// `/proc/loadavg` (1/5/15 min) when the run started and when it ended.
        var loadAtStart: String
        var loadAtEnd: String
        var measurement: ResponsivenessMeasurement

        /// hello + ping p99 under the target, with no failed probe.
        var meetsTarget: Bool {
            measurement.probes.p99 < ResponsivenessBenchmark.targetP99MS && measurement.probeFailures == 0
        }
    }

    let options: ResponsivenessOptions

    /// Runs the scenario against each binary, publishes the section; exits 1 when the booksd
    /// under test did not run or lost a hand edit.
    func run() {
        let machine = MachineInfo.current()
        var results: [Result] = []
        guard let after = scenario(label: "after", booksd: options.booksdPath) else { exit(1) }
        results.append(after)
        if let before = options.booksdBefore {
            if let result = scenario(label: "before", booksd: before) {
                results.append(result)
            } else {
                Console.error("the before binary did not run; reporting the booksd under test only")
            }
        }
        ResultsFile.write(
            "responsiveness", header: ResponsivenessReport.resultsHeader,
            rows: results.map { ResponsivenessReport.resultsRow($0, options: options) }, options: options.live)
        ResultsFile.write(
            "responsiveness-timeline", header: ["label", "event", "start_ms", "round_trip_ms"],
            rows: results.flatMap(ResponsivenessReport.timelineRows), options: options.live)
        let report = ResponsivenessReport(machine: machine, options: options, results: results)
        ResultsFile.publish(heading: Self.heading, markdown: report.markdown(), options: options.live)
        for r in results where !r.measurement.allHandEditsReached {
            Console.error(
                "FAILED (\(r.label)): a hand edit did not reach the subscriber within "
                    + "\(Int(ResponsivenessOptions.handEditLimitSeconds)) s")
        }
        if !after.measurement.allHandEditsReached { exit(1) }
    }

    /// The scenario against `booksd` on a freshly generated file in its own directory.
    private func scenario(label: String, booksd: String) -> Result? {
        guard let binDirectory = ResponsivenessOptions.binDirectory(ofBooksd: booksd), access(booksd, X_OK) == 0 else {
            Console.error("\(booksd): not an executable named booksd")
            return nil
        }
        let directory = "\(options.live.workDirectory)/live/responsiveness-\(label)"
        FileBytes.makeDirectory(directory)
        Console.error(
            "• responsiveness (\(label), \(booksd)): \(CoreReport.rows(options.rows)) rows, "
                + "\(options.writers) writers, \(CoreReport.f(options.seconds, 0)) s")
        guard let file = try? LiveBookFile(path: directory + "/books.txt", rows: options.rows) else {
            Console.error("could not write \(directory)/books.txt")
            return nil
        }
        let fileMB = Double(file.content.count) / 1_048_576
        let rewriteMS = WriteBenchmark.fullRewrite(file.content, directory: directory)
        // Spread over the file, one book per writer (two updates of one book would be committed
        // one after the other, not together).
        let bookIDs = (0..<options.writers).map { k -> String in
            let (start, _) = RowEdit.line((k + 1) * options.rows / (options.writers + 1), in: file.content)
            return String(decoding: file.content[start..<(start + 36)], as: UTF8.self)
        }
        let logPath = directory + "/booksd.log"
        unlink(logPath)
        guard
            let daemon = DaemonProcess.benchmark(
                binDirectory: binDirectory, file: file.path, socket: directory + "/booksd.sock",
                logPath: logPath)
        else { return nil }
        defer { daemon.stop() }
        let loadAtStart = Self.loadAverage()
        guard
            let loop = ResponsivenessLoop(
                socket: daemon.socketPath, file: file.path, bookIDs: bookIDs,
                seconds: options.seconds)
        else { return nil }
        let m = loop.run()
        let result = Result(
            label: label, binary: booksd, commit: Self.commit(of: binDirectory), fileMB: fileMB,
            readyMS: daemon.readyMS, fullRewriteMS: rewriteMS, loadAtStart: loadAtStart,
            loadAtEnd: Self.loadAverage(), measurement: m)
        Console.error(
            "  \(m.updates.count) updates in \(m.commits) rewrites (\(CoreReport.f(m.rewritesPerSecond, 1))/s); "
                + "hello+ping n=\(m.probes.count) p50 \(ResponsivenessReport.ms(m.probes.p50)) p99 "
                + "\(ResponsivenessReport.ms(m.probes.p99)) "
                + "max \(ResponsivenessReport.ms(m.probes.max)) ms, \(m.probeFailures) failed; hand edits "
                + m.handEdits.map { $0.arrivalMS.map { ResponsivenessReport.ms($0) + " ms" } ?? "NOT REACHED" }.joined(
                    separator: ", ")
                + "; load \(loadAtStart) → \(result.loadAtEnd)")
        return result
    }

    /// The 1-, 5- and 15-minute load averages (/proc/loadavg).
    static func loadAverage() -> String {
        let text = (try? FileBytes.readStream("/proc/loadavg")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The short commit of the git checkout containing `directory` (best effort).
    static func commit(of directory: String) -> String? {
        let output = PeerRun.run(["sh", "-c", "git -C \"$0\" rev-parse --short HEAD 2>/dev/null", directory]).output
        let hash = output.filter { !$0.isWhitespace }
        return hash.isEmpty ? nil : hash
    }
}
