import BooksTestSupport
import Glibc

/// `BooksBenchmarks replicas`: an owner booksd and a replica (`booksd --replica default=PATH`)
/// on one real nats-server (loopback), in one run, at 10k and 1M rows:
/// - the replica's first start: time until its file holds every book (from the owner's bucket);
/// - a hand edit on the owner (append, in-place rewrite of one row) → the replica's subscriber
///   (`booksctl subscribe` on the replica's socket: the replica has written the change into its
///   file and committed it), beside the owner's own subscriber on the same edits;
/// - a hand append on the replica → the owner's subscriber (the edit sent to the owner, written
///   there, published);
/// - both daemons' VmRSS and VmHWM beside the file's size;
/// - 32 writers on the owner with two replicas following (`ReplicaBenchmark+Writers`).
/// Targets (docs/SCALE-OUT.md): owner edit → replica p50 ≤ 5 ms at 10k rows and ≤ 1.5× the
/// owner's own edit → subscriber p50 at 1M; the replica's peak ≤ 2.5× the file.
struct ReplicaBenchmark {
    static let heading = "## Replicas: owner and replica over NATS"

    struct Cell {
        var rows: Int
        var copySeconds = Double.nan
        /// Owner edit kind → (owner subscriber, replica subscriber) latencies in ms.
        var owner: [(kind: LiveEditKind, local: [Double], replica: [Double], missed: Int)] = []
        /// Replica append → the owner's subscriber, ms.
        var back: [Double] = []
        var backMissed = 0
        var fileKB = 0
        var ownerRSS = 0
        var ownerHWM = 0
        var replicaRSS = 0
        var replicaHWM = 0
    }

    let options: LiveOptions
    var cells: [Cell] = []
    var writerCells: [WritersCell] = []

    var sizes: [Int] { options.onlySizes ?? (options.quick ? [10_000] : [10_000, 1_000_000]) }
    func edits(rows: Int) -> Int { options.quick ? 5 : (rows >= 1_000_000 ? 20 : max(options.edits, 40)) }

    init(options: LiveOptions) { self.options = options }

    mutating func run() {
        guard NATSServerProcess.isInstalled else {
            return Console.error("replicas: nats-server is not installed (Debian package nats-server); skipped")
        }
        let machine = MachineInfo.current()
        for rows in sizes {
            if let cell = measure(rows: rows) { cells.append(cell) }
        }
        if let cell = measureWriters() { writerCells.append(cell) }
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    private func measure(rows: Int) -> Cell? {
        let directory = "\(options.workDirectory)/live/replica-\(rows)"
        guard var file = NATSBenchmark.freshFile(directory: directory, rows: rows),
            let bench = NATSBenchDaemon.start(directory: directory, file: file.path, options: options)
        else { return nil }
        defer { bench.stop() }
        var cell = Cell(rows: rows)
        let timeout: UInt64 = rows >= 1_000_000 ? 240_000_000_000 : 60_000_000_000
        let started = Stopwatch.now()
        guard let (replica, replicaPath) = startReplica("replica", directory: directory, bench: bench) else {
            return nil
        }
        defer { replica.stop() }
        Console.error("• replicas: \(CoreReport.rows(rows)) rows, first copy")
        let ownerSize = Self.size(file.path)
        let copyTimeout: UInt64 = rows >= 1_000_000 ? 900_000_000_000 : timeout  // bucket read and write
        while Stopwatch.now() - started < copyTimeout {
            if Self.size(replicaPath) >= ownerSize, Self.lineCount(replicaPath) >= rows { break }
            usleep(5_000)
        }
        cell.copySeconds = Double(Stopwatch.now() - started) / 1e9
        let local = LineChild(
            ["\(options.binDirectory)/booksctl", "--socket", bench.daemon.socketPath, "subscribe", "--json"],
            stderrPath: directory + "/local.err")
        let remote = LineChild(
            ["\(options.binDirectory)/booksctl", "--socket", directory + "/replica.sock", "subscribe", "--json"],
            stderrPath: directory + "/replica-sub.err")
        guard let local, let remote else {
            Console.error("  cannot start the subscribers; skipped")
            return nil
        }
        defer {
            local.stop()
            remote.stop()
        }
        let peers = ["booksd", "replica"]  // the replica's change sets are its writes of the owner's
        // Warm-up appends until both subscribers (connecting meanwhile) report one.
        var warm = false
        for _ in 0..<5 where !warm {
            let (expected, at) = file.perform(.append)
            warm = !NATSBenchmark.await(expected, children: [local, remote], since: at, timeout: timeout, peers: peers)
                .contains(nil)
        }
        guard warm else {
            Console.error("  the warm-up edit never reached the replica; see \(directory)")
            return nil
        }
        for kind in [LiveEditKind.append, .rewrite] {
            var samples = (kind: kind, local: [Double](), replica: [Double](), missed: 0)
            Console.error(
                "• replicas: \(CoreReport.rows(rows)) rows, owner \(kind.rawValue), \(edits(rows: rows)) edits")
            for _ in 0..<edits(rows: rows) {
                for child in [local, remote] { child.drain(quiet: 20_000_000, cap: 2_000_000_000) }
                let (expected, at) = file.perform(kind)
                let seen = NATSBenchmark.await(
                    expected, children: [local, remote], since: at, timeout: timeout, peers: peers)
                guard let l = seen[0], let r = seen[1] else {
                    samples.missed += 1
                    continue
                }
                samples.local.append(Double(l - at) / 1e6)
                samples.replica.append(Double(r - at) / 1e6)
            }
            cell.owner.append(samples)
        }
        // Hand appends on the replica's file, to the owner.
        guard var replicaFile = try? LiveBookFile(adopting: replicaPath) else { return cell }
        Console.error("• replicas: \(CoreReport.rows(rows)) rows, replica append → owner")
        for _ in 0..<edits(rows: rows) {
            for child in [local, remote] { child.drain(quiet: 20_000_000, cap: 2_000_000_000) }
            let (expected, at) = replicaFile.perform(.append)
            let seen = NATSBenchmark.await(
                expected, children: [local], since: at, timeout: timeout, peers: ["replica"])[0]
            guard let seen else {
                cell.backMissed += 1
                continue
            }
            cell.back.append(Double(seen - at) / 1e6)
        }
        cell.fileKB = Self.size(file.path) / 1024
        (cell.ownerRSS, cell.ownerHWM) = (bench.daemon.rssKB, ProcStatus.kB("VmHWM", pid: bench.daemon.pid))
        (cell.replicaRSS, cell.replicaHWM) = (replica.rssKB, ProcStatus.kB("VmHWM", pid: replica.pid))
        return cell
    }

    /// The size of the file at `path` (0 when missing).
    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Lines in the file at `path` (0 when unreadable).
    static func lineCount(_ path: String) -> Int {
        guard let bytes = try? FileBytes.read(path) else { return 0 }
        return bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
