import BooksPlatform
import BooksTestSupport
import Dispatch
import Glibc

/// `BooksBenchmarks saves`: acknowledged `save`s per second through `BooksContext` with 1 and 32
/// concurrent contexts at 10k rows (each save: 3 inserts, 2 updates, 1 delete, all or nothing),
/// beside plain one-book inserts through `BooksClient` against the same daemon in the same run.
struct SaveBenchmark {
    static let heading = "## Live: context saves"
    static let rows = 10_000
    static let contexts = 32

    struct Row: Sendable {
        var kind: String
        var workers: Int
        var outcome: SaveLoad.Outcome
        var perSecond: Double { Double(outcome.completed) / max(outcome.seconds, 1e-9) }
        var latency: Distribution { Distribution(outcome.latenciesMS) }
    }

    let options: LiveOptions
    var results: [Row] = []
    var seconds: Double { options.quick ? 1 : 4 }

    init(options: LiveOptions) { self.options = options }

    /// The seed file: `rows` books, author `Context <i % 32>` (each context's own books).
    static func seed(rows: Int) -> [UInt8] {
        var text = ""
        for i in 0..<rows { text += "r\(i)|Book number \(i) of the save benchmark|Context \(i % contexts)\n" }
        return Array(text.utf8)
    }

    mutating func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/saves-\(Self.rows)"
        FileBytes.makeDirectory(directory)
        let file = directory + "/books.txt"
        do { try FileBytes.write(Self.seed(rows: Self.rows), to: file) } catch { exit(1) }
        guard
            let daemon = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: file, socket: directory + "/booksd.sock",
                settings: ["max_clients=200"], logPath: directory + "/booksd.log")
        else { exit(1) }
        let socket = daemon.socketPath
        for workers in [1, Self.contexts] {
            for kind in ["insert", "save"] {
                Console.error("• saves: \(kind), \(workers) clients, \(seconds) s")
                let row = Row(kind: kind, workers: workers, outcome: Self.measure(kind, socket, workers, seconds))
                Console.error(
                    "  \(CoreReport.f(row.perSecond, 1)) \(kind)s/s, p50 \(CoreReport.ms(row.latency.p50)) ms")
                results.append(row)
            }
        }
        daemon.stop()
        ResultsFile.write(
            "saves", header: ["kind", "clients", "completed", "failed", "seconds", "per_second", "p50", "p99"],
            rows: results.map { r in
                [
                    r.kind, String(r.workers), String(r.outcome.completed), String(r.outcome.failed),
                    String(r.outcome.seconds), String(r.perSecond), String(r.latency.p50), String(r.latency.p99),
                ]
            }, options: options)
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    /// Runs one cell on the cooperative pool; the main thread waits for it.
    static func measure(_ kind: String, _ socket: String, _ workers: Int, _ seconds: Double) -> SaveLoad.Outcome {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        Task {
            do {
                box.set(
                    kind == "save"
                        ? try await SaveLoad.saves(socket: socket, workers: workers, seconds: seconds)
                        : try await SaveLoad.inserts(socket: socket, workers: workers, seconds: seconds))
            } catch {
                Console.error("saves: \(kind) with \(workers) clients failed: \(error)")
            }
            done.signal()
        }
        done.wait()
        guard let outcome = box.get() else { exit(1) }
        return outcome
    }

    func markdown(machine: MachineInfo) -> String {
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. One private booksd on a \(CoreReport.rows(Self.rows))-row "
                + "file. `save`: each client is a `BooksContext` on its own connection that fetched its own books "
                + "(author `Context k`) and saves 3 inserts, 2 updates and 1 delete at a time, closed loop, all or "
                + "nothing (a full rewrite of the file + fsync each, grouped with the other contexts' saves). "
                + "`insert`: a `BooksClient` inserting one book per request (the append path), same daemon, same "
                + "run. Latency: call → acknowledged (durable) reply.")
        md.append("")
        md.append("| request | clients | acknowledged | seconds | per second | p50 ms | p99 ms |")
        md.append("|---|---:|---:|---:|---:|---:|---:|")
        for r in results {
            md.append(
                "| \(r.kind) | \(r.workers) | \(r.outcome.completed)"
                    + "\(r.outcome.failed > 0 ? " (+\(r.outcome.failed) failed)" : "") | "
                    + "\(CoreReport.f(r.outcome.seconds, 1)) | \(CoreReport.f(r.perSecond, 1)) | "
                    + "\(CoreReport.ms(r.latency.p50)) | \(CoreReport.ms(r.latency.p99)) |")
        }
        md.append("")
        return md.joined(separator: "\n")
    }
}

/// The outcome handed from the measuring task to the waiting main thread.
private final class ResultBox: Sendable {
    private let value = Locked<SaveLoad.Outcome?>(nil)
    func set(_ outcome: SaveLoad.Outcome) { value.withLock { $0 = outcome } }
    func get() -> SaveLoad.Outcome? { value.withLock { $0 } }
}
