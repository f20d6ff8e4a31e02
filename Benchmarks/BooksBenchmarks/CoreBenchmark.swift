import BooksCore
import BooksTestSupport
import Glibc

/// `BooksBenchmarks core`: parse and diff speed of `BookDocument` against a Python 3 peer, and
/// peak memory at the largest size. Prints a Markdown report and updates docs/BENCHMARKS.md.
struct CoreBenchmark {
    let options: CoreOptions
    /// Keeps results observable so the optimizer cannot drop the measured work.
    private var sink = 0

    init(options: CoreOptions) { self.options = options }

    mutating func run() {
        #if DEBUG
        Console.error("warning: debug build; timings are meaningless (use Benchmarks/run-core.sh)")
        #endif
        FileBytes.makeDirectory(options.workDirectory)
        let machine = MachineInfo.current()
        var generator = BookFileGenerator()
        var results: [SizeResult] = []
        var memory: MemoryResult?
        for rows in options.sizes {
            let path = "\(options.workDirectory)/books-\(rows).txt"
            let bytes = generator.file(rows: rows)
            do { try FileBytes.write(bytes, to: path) } catch {
                Console.error("\(error)")
                exit(1)
            }
            let newRow = generator.row()
            Console.error("• \(rows) rows (\(bytes.count) bytes), \(options.runs(forRows: rows)) runs…")
            results.append(measure(rows: rows, path: path, bytes: bytes, newRow: newRow))
            if rows == options.sizes.last { memory = measureMemory(rows: rows, path: path, fileBytes: bytes.count) }
        }
        let report = CoreReport(
            machine: machine, command: options.commandLine, quick: options.quick,
            sizes: results, memory: memory)
        let markdown = report.markdown()
        Console.out(markdown)
        Console.error("(sink \(sink))")
        if let docs = options.docsPath {
            do {
                try DocsSection.replace(heading: CoreReport.heading, with: markdown, in: docs)
                Console.error("updated \(docs)")
            } catch {
                Console.error("could not update \(docs): \(error)")
                exit(1)
            }
        }
    }

    private mutating func measure(rows: Int, path: String, bytes: [UInt8], newRow: [UInt8]) -> SizeResult {
        let runs = options.runs(forRows: rows)
        // (a) Full parse, bytes in memory; then read + parse. The previous document is freed
        // outside the timed region. Each Swift run is paired with one Python peer run right after
        // it (the machine is shared: paired runs see similar load); the peer warms its heap with
        // one untimed parse first, so it is timed as in a long-running process (the conservative
        // choice for Swift, whose large buffers are fresh `mmap`s every run).
        var parse: [Double] = []
        var readParse: [Double] = []
        var pythonParse: [Double] = []
        var pythonReadParse: [Double] = []
        var parseCPU: [Double] = []
        var pythonParseCPU: [Double] = []
        for _ in 0..<runs {
            var document: BookDocument?
            let cpu = Stopwatch.cpuMilliseconds()
            parse.append(Stopwatch.milliseconds { document = BookDocument(parsing: bytes) })
            parseCPU.append(Stopwatch.cpuMilliseconds() - cpu)
            sink &+= document!.bookCount
            document = nil
            readParse.append(
                Stopwatch.milliseconds {
                    document = BookDocument(parsing: (try? FileBytes.read(path)) ?? [])
                })
            sink &+= document!.bookCount
            precondition(document!.bookCount == rows, "parse found \(document!.bookCount) of \(rows) books")
            document = nil
            let peer = PeerRun.run([options.python, options.peerScript, path, "--runs", "1", "--warm"])
            let values = PeerRun.values(peer.output)
            if peer.status == 0, values["books"] == Double(rows),
                let p = values["parse_ms_median"], let rp = values["read_parse_ms_median"]
            {
                pythonParse.append(p)
                pythonReadParse.append(rp)
                pythonParseCPU.append(values["parse_cpu_ms_median"] ?? .nan)
            } else {
                Console.error("python peer failed (status \(peer.status)): \(peer.output)")
            }
        }
        var result = SizeResult(
            rows: rows, fileBytes: bytes.count, runs: runs,
            swiftParseMS: Stopwatch.median(parse), swiftReadParseMS: Stopwatch.median(readParse),
            swiftParseCPUMS: Stopwatch.median(parseCPU))
        if pythonParse.count == runs {
            result.pythonParseMS = Stopwatch.median(pythonParse)
            result.pythonReadParseMS = Stopwatch.median(pythonReadParse)
            result.pythonParseCPUMS = Stopwatch.median(pythonParseCPU)
        }
        // (b, c) One-row edits: incremental `update(to:)` against `updateFully(to:)`. Each timed
        // step is undone (untimed) so every run starts from the original file.
        for kind in RowEdit.Kind.allCases {
            let edit = RowEdit(kind, of: bytes, rows: rows, newRow: newRow)
            var incremental: [Double] = []
            var full: [Double] = []
            var path = ""
            var document = BookDocument(parsing: bytes)
            for _ in 0..<runs {
                var update: DocumentUpdate?
                incremental.append(Stopwatch.milliseconds { update = document.update(to: edit.edited) })
                precondition(update!.changes.count == 1, "\(kind): \(update!.changes.count) changes")
                path = update!.path.rawValue
                update = nil
                _ = document.update(to: bytes)
            }
            for _ in 0..<runs {
                var changes: ChangeSet?
                full.append(Stopwatch.milliseconds { changes = document.updateFully(to: edit.edited) })
                precondition(changes!.count == 1, "\(kind): \(changes!.count) changes (full)")
                changes = nil
                _ = document.updateFully(to: bytes)
            }
            sink &+= document.bookCount
            result.edits.append(
                .init(
                    kind: kind, incrementalMS: Stopwatch.median(incremental),
                    fullMS: Stopwatch.median(full), path: path))
        }
        return result
    }

    /// (d) Peak RSS of fresh processes that load, parse and hold the file: this executable's
    /// hidden `core-rss` subcommand, and the Python peer's `--rss` mode.
    private func measureMemory(rows: Int, path: String, fileBytes: Int) -> MemoryResult? {
        let swift = PeerRun.run([BuildProducts.currentExecutable(), "core-rss", path])
        let values = PeerRun.values(swift.output)
        guard swift.status == 0, let hwm = values["hwm_kb"], values["books"] == Double(rows) else {
            Console.error("core-rss failed (status \(swift.status)): \(swift.output)")
            return nil
        }
        let python = PeerRun.run([options.python, options.peerScript, path, "--rss"])
        let pythonValues = PeerRun.values(python.output)
        return MemoryResult(
            rows: rows, fileBytes: fileBytes, swiftPeakKB: Int(hwm),
            swiftBaselineKB: Int(values["baseline_kb"] ?? 0),
            pythonPeakKB: python.status == 0 ? pythonValues["hwm_kb"].map { Int($0) } : nil)
    }
}
