import BooksTestSupport
import Glibc

/// The fan-out case without a warm-up change: subscribers join a freshly started booksd before
/// it handled any change, then the daemon's first change since its start is timed until the last
/// subscriber has it (reported beside the warm case by `FanOutReport`). The subscribers resume at
/// the hello point (no snapshot) or, with `snapshot`, each first receives and reads the whole file.
enum FanOutColdStart {
    /// ms until the last of `subscribers` had the first change of a fresh booksd and the later
    /// changes on the same daemon (`laterChanges` of them), the peer the first one is compared with;
    /// nil (reported) when the daemon or a subscriber failed or a change did not reach every
    /// subscriber.
    static func firstChange(
        benchmark: FanOutBenchmark, subscribers count: Int, round: Int, snapshot: Bool = false
    ) -> (first: Double, later: [Double])? {
        let how = snapshot ? "with snapshots" : "resuming"
        Console.error("• fan-out: \(count) subscribers \(how), joined before the first change, round \(round + 1)")
        let options = benchmark.options
        let directory = benchmark.directory
        guard
            let daemon = FanOutBenchmark.startDaemon(
                options: options, directory: directory, subscribers: count, log: "booksd-cold.log")
        else { return nil }
        defer { _ = daemon.stop() }
        guard let pool = SubscriberPool(socketPath: daemon.socketPath, count: count, snapshot: snapshot) else {
            return nil
        }
        defer { pool.close() }
        usleep(benchmark.idleMicroseconds)
        var changes: [Double] = []
        for k in 0...benchmark.laterChanges {
            let marker = "Cold \(snapshot ? "snapshot " : "")\(count)-\(round)-\(k)"
            let at = FanOutAppend.row(path: directory + "/books.txt", name: marker, author: "Bench")
            let arrivals = pool.arrival(of: "\"" + marker + "\"", since: at, timeoutNS: 60_000_000_000)
            guard arrivals.allSatisfy({ $0 != nil }), let last = arrivals.compactMap({ $0 }).max() else {
                Console.error("  \(arrivals.filter { $0 == nil }.count) subscribers missed change \(k)")
                return nil
            }
            changes.append(Double(last) / 1e6)
            usleep(20_000)
        }
        let later =
            changes.count > 1
            ? "; later on this daemon p50 \(CoreReport.ms(Distribution(Array(changes.dropFirst())).p50)) ms" : ""
        Console.error("  first change \(CoreReport.ms(changes[0])) ms\(later)")
        return (changes[0], Array(changes.dropFirst()))
    }
}
