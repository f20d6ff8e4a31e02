import BooksTestSupport
import Glibc

/// `BooksBenchmarks merged-saves`: what a save from a stale buffer costs at 1M rows. Three edits
/// of one row's name, each timed from the moment the new content is in place (rename returned,
/// or the in-place write closed) until `booksctl subscribe --json` prints the row's update:
/// - `stale rename (merged)`: a file born before a client's write to another row, then renamed
///   over books.txt (as vim's backup-and-rename or a script's temporary file do): booksd finds
///   its base by the birth time, merges the client's write back in and rewrites the file;
/// - `fresh rename (plain)`: the same, but born after the newest version (nothing to merge);
/// - `in-place rewrite (plain)`: `O_TRUNC` and the whole file written (nothing to merge).
/// Same daemon, same file, interleaved, medians; the target is merged ≤ 3 × plain.
struct MergedSaveBenchmark {
    static let heading = "## Live: merged stale save vs plain rewrite (1M rows)"
    static let kinds = ["stale rename (merged)", "fresh rename (plain)", "in-place rewrite (plain)"]

    let options: LiveOptions
    var rows: Int { options.onlySizes?.first ?? (options.quick ? 100_000 : 1_000_000) }
    var rounds: Int { options.quick ? 3 : 7 }
    var samples: [String: [Double]] = [:]
    /// Stale saves: milliseconds from the rename until the file held the merged content.
    var fileSamples: [Double] = []
    /// The client's `booksctl update` before each stale save: spawn to exit, i.e. a durable
    /// commit that rewrites the whole file (the plain full rewrite a client write costs).
    var clientSamples: [Double] = []
    /// Stale saves after which the client's write was not in the file (a lost write).
    var lost = 0
    /// Stale saves whose file, read as soon as the subscriber printed the merged change, did not
    /// hold the client's write yet (the change announced before the merged content was in place).
    var earlyAnnouncements = 0
    var missed = 0

    init(options: LiveOptions) { self.options = options }

    mutating func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/merged-\(rows)"
        FileBytes.makeDirectory(directory)
        let path = directory + "/books.txt"
        var generator = BookFileGenerator()
        do { try FileBytes.write(generator.file(rows: rows), to: path) } catch { exit(1) }
        guard
            let daemon = DaemonProcess.benchmark(
                binDirectory: options.binDirectory, file: path, socket: directory + "/booksd.sock",
                logPath: directory + "/booksd.log")
        else { exit(1) }
        defer { daemon.stop() }
        let ctl = "\(options.binDirectory)/booksctl"
        guard
            let feed = LineChild(
                [ctl, "--socket", daemon.socketPath, "subscribe", "--json"], stderrPath: directory + "/booksctl.log")
        else { exit(1) }
        defer { feed.stop() }
        usleep(300_000)
        Console.error("• merged-saves: \(CoreReport.rows(rows)) rows, \(rounds) rounds × \(Self.kinds.count) kinds")
        for round in 0..<rounds {
            for (k, kind) in Self.kinds.enumerated() {
                feed.drain(quiet: 100_000_000, cap: 10_000_000_000)
                guard let bytes = try? FileBytes.read(path) else { exit(1) }
                let edited = Self.renaming(
                    row: (round * 7 + k * 3 + 1) * (rows / 31) % rows, in: bytes, to: "Merged \(round)-\(k)")
                let latency: Double?
                switch k {
                case 0:
                    latency = staleRename(
                        edited, path: path, ctl: ctl, socket: daemon.socketPath, feed: feed, round: round)
                case 1: latency = rename(edited.bytes, path: path, id: edited.id, feed: feed, wait: true)
                default: latency = inPlace(edited.bytes, path: path, id: edited.id, feed: feed)
                }
                if let latency { samples[kind, default: []].append(latency) } else { missed += 1 }
                Console.error("  \(kind): \(latency.map { CoreReport.ms($0) } ?? "missed") ms")
            }
        }
        ResultsFile.write(
            "merged-saves", header: ["kind", "n", "p50", "max"],
            rows: Self.kinds.map { kind in
                let d = Distribution(samples[kind] ?? [])
                return [kind, String(d.count), String(d.p50), String(d.max)]
            }, options: options)
        ResultsFile.publish(heading: Self.heading, markdown: markdown(machine: machine), options: options)
    }

    /// The stale save: a file made now from `edited` (the current content with one name
    /// changed), then a client's write to another row (awaited on the feed), then the rename.
    mutating func staleRename(
        _ edited: (bytes: [UInt8], id: String, other: String), path: String, ctl: String, socket: String,
        feed: LineChild, round: Int
    ) -> Double? {
        usleep(250_000)  // the version in place is older than the daemon's birth-time slack
        let temporary = path + ".stale"
        guard FileBytes.writeInPlace(edited.bytes, to: temporary) else { return nil }
        let name = "Client \(round)"
        let began = Stopwatch.now()
        let update = PeerRun.run([ctl, "--socket", socket, "update", edited.other, "--name", name])
        clientSamples.append(Double(Stopwatch.now() - began) / 1e6)
        guard update.status == 0 else {
            Console.error("  client update failed: \(update.output)")
            return nil
        }
        guard arrival(feed, id: edited.other, since: Stopwatch.now()) != nil else { return nil }
        let start = Stopwatch.now()
        let latency = rename(from: temporary, path: path, id: edited.id, feed: feed)
        // booksd announces the change once the merged content is in the file: read it at once
        // (as a subscriber would), and wait until it holds the client's write again if it does
        // not (the next edit reads the file); time that too.
        let deadline = Stopwatch.now() + 30_000_000_000
        var merged = false
        var reads = 0
        while !merged, Stopwatch.now() < deadline {
            reads += 1
            if let text = try? FileBytes.read(path), Self.contains(text, "|\(name)|") {
                merged = true
            } else {
                usleep(2_000)
            }
        }
        if latency != nil, reads > 1 { earlyAnnouncements += 1 }
        if merged { fileSamples.append(Double(Stopwatch.now() - start) / 1e6) } else { lost += 1 }
        return latency
    }

    /// A plain save by rename: a file made now (after the newest version) renamed over `path`.
    func rename(_ bytes: [UInt8], path: String, id: String, feed: LineChild, wait: Bool) -> Double? {
        if wait { usleep(250_000) }
        let temporary = path + ".fresh"
        guard FileBytes.writeInPlace(bytes, to: temporary) else { return nil }
        return rename(from: temporary, path: path, id: id, feed: feed)
    }

    func rename(from temporary: String, path: String, id: String, feed: LineChild) -> Double? {
        let start = Stopwatch.now()
        guard Glibc.rename(temporary, path) == 0 else { return nil }
        return arrival(feed, id: id, since: start)
    }

    /// A plain in-place rewrite: `O_TRUNC`, the whole file, close; timed from the close.
    func inPlace(_ bytes: [UInt8], path: String, id: String, feed: LineChild) -> Double? {
        usleep(250_000)
        guard FileBytes.writeInPlace(bytes, to: path) else { return nil }
        return arrival(feed, id: id, since: Stopwatch.now())
    }

    /// Milliseconds from `since` until the feed prints an update of `id`; nil after 60 s.
    func arrival(_ feed: LineChild, id: String, since: UInt64) -> Double? {
        while let (line, at) = feed.nextLine(until: since + 60_000_000_000) {
            if JSONLine.string("id", in: line) == id, JSONLine.string("kind", in: line) == "update" {
                return Double(at > since ? at - since : 0) / 1e6
            }
        }
        return nil
    }

    /// `bytes` with row `row`'s name replaced by `name`; that row's id, and the id of a row far
    /// from it (the client's).
    static func renaming(row: Int, in bytes: [UInt8], to name: String) -> (bytes: [UInt8], id: String, other: String) {
        var starts: [Int] = [0]
        starts.reserveCapacity(bytes.count / 40)
        for (i, b) in bytes.enumerated() where b == 0x0A && i + 1 < bytes.count { starts.append(i + 1) }
        func id(_ k: Int) -> (String, Int) {
            let start = starts[k]
            let bar = bytes[start...].firstIndex(of: UInt8(ascii: "|"))!
            return (String(decoding: bytes[start..<bar], as: UTF8.self), bar)
        }
        let k = row % starts.count
        let (mine, bar) = id(k)
        let second = bytes[(bar + 1)...].firstIndex(of: UInt8(ascii: "|"))!
        let edited = Array(bytes[...bar]) + Array(name.utf8) + bytes[second...]
        let other = id((k + starts.count / 2) % starts.count).0
        return (edited, mine, other)
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard let first = n.first, haystack.count >= n.count else { return false }
        var i = 0
        while i <= haystack.count - n.count {
            if haystack[i] == first, haystack[i..<(i + n.count)].elementsEqual(n) { return true }
            i += 1
        }
        return false
    }

    func markdown(machine: MachineInfo) -> String {
        let stale = Distribution(samples[Self.kinds[0]] ?? []).p50
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. One private booksd (release) on a "
                + "\(CoreReport.rows(rows))-row file, one `booksctl subscribe --json`; \(rounds) rounds, the three "
                + "kinds interleaved. Each edit changes one row's name; timed from rename() returning (or the "
                + "in-place write's close) until the subscriber prints that row's update. `stale rename`: the "
                + "renamed file was created before a client's `update` of another row, so booksd merges that "
                + "write back in (birth-time base) and rewrites the file; `fresh rename` / `in-place rewrite`: "
                + "nothing to merge. Lost client writes after a merge (file without it 30 s later): \(lost); "
                + "missed: \(missed). Merged changes announced before the file held the client's write (the "
                + "file read as soon as the subscriber printed the change): \(earlyAnnouncements). "
                + "Rename → file holds the merged content, median \(CoreReport.ms(Distribution(fileSamples).p50)) ms "
                + "(max \(CoreReport.ms(Distribution(fileSamples).max)) ms).")
        md.append("")
        md.append("| save | n | median ms | max ms | merged ÷ this |")
        md.append("|---|---:|---:|---:|---:|")
        for kind in Self.kinds {
            let d = Distribution(samples[kind] ?? [])
            md.append(
                "| \(kind) | \(d.count) | \(CoreReport.ms(d.p50)) | \(CoreReport.ms(d.max)) | "
                    + "\(CoreReport.f(stale / d.p50, 2)) |")
        }
        let client = Distribution(clientSamples)
        md.append(
            "| client write (`booksctl update`: durable full rewrite, spawn to exit) | \(client.count) | "
                + "\(CoreReport.ms(client.p50)) | \(CoreReport.ms(client.max)) | \(CoreReport.f(stale / client.p50, 2)) |"
        )
        md.append("")
        return md.joined(separator: "\n")
    }
}

extension FileBytes {
    /// Writes `bytes` to `path` in place (`O_CREAT|O_TRUNC`, the same inode if it exists).
    static func writeInPlace(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return writeAll(bytes, to: fd)
    }
}
