import BooksTestSupport
import Glibc

/// Subscribers joining and leaving at `rate` per second (each join: connect, `hello` and
/// `subscribe` pipelined; each leave: close, unread bytes and all) while file appends flow, with
/// `stayers` subscribers held throughout: every stayer must get every change exactly once, in
/// order, and the last stayer's latency is compared with the quiet case of the same run.
struct FanOutChurn {
    struct Result: Sendable {
        var stayers: Int
        var rate: Int
        var population: Int
        var joins: Int
        var leaves: Int
        var seconds: Double
        /// Changes (seqs) the appends made.
        var changes: Int
        /// Stayers whose change seqs were not exactly the expected ones.
        var wrongStayers: Int
        var lost: Int
        var repeated: Int
        var last: Distribution
        var quietP50: Double
    }

    let options: LiveOptions
    let file: String
    let directory: String
    var stayers: Int { options.quick ? 20 : 1_000 }
    var rate: Int { options.quick ? 200 : 1_000 }
    var changes: Int { options.quick ? 5 : 30 }
    /// Churning connections open at once (each lives population / rate seconds).
    var population: Int { options.quick ? 20 : 100 }
    let intervalNS: UInt64 = 100_000_000

    func run(quietP50: Double) -> Result? {
        Console.error("• fan-out churn: \(stayers) stay, \(rate)/s join and leave, \(changes) appends")
        guard
            let daemon = FanOutBenchmark.startDaemon(
                options: options, directory: directory, subscribers: stayers + population * 4, log: "booksd-churn.log"),
            let pool = SubscriberPool(socketPath: daemon.socketPath, count: stayers)
        else { return nil }
        defer {
            pool.close()
            _ = daemon.stop()
        }
        let base = pool.point.seq
        var latest = pool.point
        var seqs = [[UInt64]](repeating: [], count: stayers)
        var arrivals: [UInt64: UInt64] = [:]  // seq → when the last stayer read it
        var editedAt: [UInt64] = []
        var churners: [LineClient] = []
        var churnHead = 0
        var joins = 0
        var leaves = 0
        var finalSeq: UInt64?
        let start = Stopwatch.now()
        var deadline = start + 120_000_000_000
        while Stopwatch.now() < deadline {
            let now = Stopwatch.now()
            // Joins and leaves due by now at `rate` per second (resuming at the latest seq seen).
            while finalSeq == nil && Double(joins) < Double(now - start) * Double(rate) / 1e9 {
                if let client = LineClient.connectIfListening(daemon.socketPath) {
                    client.enqueue(#"{"id":"h","op":"hello","version":1}"#)
                    client.enqueue(SubscriberPool.subscribeLine(point: latest, authorContains: nil))
                    client.flush()
                    churners.append(client)
                }
                joins += 1
                if churners.count - churnHead > population {
                    churners[churnHead].close()
                    churnHead += 1
                    leaves += 1
                }
            }
            // One append every `intervalNS` after the previous one (never two back to back: booksd
            // may report appends that close together as one change).
            if editedAt.count < changes && now >= (editedAt.last ?? start) + intervalNS {
                editedAt.append(FanOutAppend.row(path: file, name: "Churn \(editedAt.count)", author: "Bench"))
            }
            pool.lines(timeoutMS: 1) { k, line in
                guard let seq = SubscriberPool.changeSeq(line) else { return }
                seqs[k].append(seq)
                arrivals[seq] = Stopwatch.now()
                if seq > latest.seq { latest.seq = seq }
            }
            // After the last append: the daemon's final seq (from a hello), then until every
            // stayer has it, plus 200 ms to catch a repeated event.
            if finalSeq == nil, editedAt.count == changes, Stopwatch.now() > editedAt.last! + 300_000_000,
                let probe = LineClient.connectIfListening(daemon.socketPath), let point = probe.helloPoint()
            {
                probe.close()
                finalSeq = point.seq
                deadline = Stopwatch.now() + 30_000_000_000
            }
            if let finalSeq, seqs.allSatisfy({ $0.last == finalSeq }) {
                deadline = min(deadline, Stopwatch.now() + 200_000_000)
            }
        }
        for client in churners[churnHead...] { client.close() }
        let last = finalSeq ?? latest.seq
        let expected = last > base ? Array((base + 1)...last) : []
        var result = Result(
            stayers: stayers, rate: rate, population: population, joins: joins, leaves: leaves,
            seconds: Double(Stopwatch.now() - start) / 1e9, changes: expected.count, wrongStayers: 0, lost: 0,
            repeated: 0, last: Distribution([]), quietP50: quietP50)
        for got in seqs where got != expected {
            result.wrongStayers += 1
            result.lost += expected.filter { !got.contains($0) }.count
            result.repeated += got.count - Set(got).count
        }
        // Latency when each append is its own change (seq base + k for append k), as it is when
        // they are 100 ms apart; otherwise appends are not matched to changes.
        if expected.count == editedAt.count {
            result.last = Distribution(
                editedAt.enumerated().compactMap { k, at in
                    arrivals[base + UInt64(k) + 1].map { $0 > at ? Double($0 - at) / 1e6 : 0 }
                })
        }
        Console.error(
            "  \(joins) joins, \(leaves) leaves; stayers wrong \(result.wrongStayers) (lost \(result.lost), "
                + "repeated \(result.repeated)); last p50 \(CoreReport.ms(result.last.p50)) ms")
        return result
    }
}
