import BooksTestSupport
import Glibc

/// The publisher's own rate: change sets that waited while nats-server was down, published when it
/// is back (what `nats_batch` changes; with live writers the publisher keeps up either way).
extension NATSBenchmark {
    struct BacklogCell {
        /// `nats_batch`; nil: the older booksd given with `--nats-booksd-before`.
        var batch: Int?
        var changeSets: Int
        var received: Int
        /// First to last change set at the remote subscriber.
        var seconds: Double
        var perSecond: Double { Double(received - 1) / seconds }
    }

    var backlogSize: Int { options.quick ? 300 : 2_000 }

    /// Starts booksd and nats-server, stops the server, makes `backlogSize` single-book inserts (one
    /// change set each: one at a time), starts the server again and times the change sets' arrival
    /// at a remote subscriber (an ordered consumer from the stream's start).
    mutating func measureBacklog(batch: Int?, booksd: String? = nil) {
        let directory = "\(options.workDirectory)/live/nats-backlog-\(batch.map(String.init) ?? "before")"
        guard Self.freshFile(directory: directory, rows: 10_000) != nil,
            let bench = NATSBenchDaemon.start(
                directory: directory, file: directory + "/books.txt", options: options,
                settings: batch.map { ["nats_batch=\($0)"] } ?? [],
                binDirectory: booksd.map { String($0[..<($0.lastIndex(of: "/") ?? $0.startIndex)]) })
        else { return }
        defer { bench.stop() }
        let url = bench.server.url
        // The initial snapshot marker is in the stream before the server goes away.
        guard let first = bench.listener(["count", url, "books.default.changes", "all"], stderrPath: "/dev/null"),
            first.nextLine(until: Stopwatch.now() + 60_000_000_000)?.line == "ready",
            first.nextLine(until: Stopwatch.now() + 120_000_000_000) != nil
        else { return Console.error("  booksd published nothing; see \(directory)") }
        first.stop()
        bench.server.kill()
        guard let client = LineClient.connectIfListening(bench.daemon.socketPath), client.helloPoint() != nil else {
            return Console.error("  cannot connect to booksd")
        }
        for k in 0..<backlogSize {
            let id = "b\(k)"
            _ = client.send(
                #"{"id":"\#(id)","op":"insert","books":[{"name":"Backlog \#(k)","author":"Bench"}]}"#)
            guard client.readLine(timeout: 30, containing: "\"id\":\"\(id)\"")?.contains("\"ok\":true") == true else {
                return Console.error("  insert \(k) failed")
            }
        }
        client.close()
        Console.error("• nats backlog: \(backlogSize) change sets, " + (batch.map { "nats_batch = \($0)" } ?? "before"))
        do { try bench.server.start() } catch { return Console.error("  nats-server did not restart: \(error)") }
        guard let child = bench.listener(["count", url, "books.default.changes", "all"], stderrPath: "/dev/null"),
            child.nextLine(until: Stopwatch.now() + 60_000_000_000)?.line == "ready"
        else { return Console.error("  the listener did not get ready") }
        defer { child.stop() }
        var seen: (messages: Int, books: Int, first: UInt64, at: UInt64)?
        while (seen?.books ?? 0) < backlogSize, let line = child.nextLine(until: Stopwatch.now() + 120_000_000_000) {
            if let count = Self.countLine(line.line) { seen = count }
        }
        guard let seen else { return Console.error("  nothing arrived") }
        // From the first change set with books (the snapshot marker before it has none) to the last.
        let cell = BacklogCell(
            batch: batch, changeSets: backlogSize, received: seen.books, seconds: Double(seen.at - seen.first) / 1e9)
        Console.error(
            "  \(cell.received) change sets in \(CoreReport.f(cell.seconds * 1000, 0)) ms: "
                + "\(CoreReport.f(cell.perSecond, 0)) change sets/s")
        backlog.append(cell)
    }
}
