import BooksTestSupport
import Glibc

/// The fan-out case without a warm-up change: subscribers join a freshly started booksd before
/// it handled any change, then the daemon's first change since its start is timed until the last
/// subscriber has it (reported beside the warm case by `FanOutReport`).
enum FanOutColdStart {
    /// ms until the last of `subscribers` had the first change of a fresh booksd; nil (reported)
    /// when the daemon or a subscriber failed or the change did not reach every subscriber.
    static func firstChange(benchmark: FanOutBenchmark, subscribers count: Int, round: Int) -> Double? {
        Console.error("• fan-out: \(count) subscribers, joined before the first change, round \(round + 1)")
        let options = benchmark.options
        let directory = benchmark.directory
        guard
            let daemon = FanOutBenchmark.startDaemon(
                options: options, directory: directory, subscribers: count, log: "booksd-cold.log")
        else { return nil }
        defer { _ = daemon.stop() }
        guard let pool = SubscriberPool(socketPath: daemon.socketPath, count: count) else { return nil }
        defer { pool.close() }
        usleep(benchmark.idleMicroseconds)
        let marker = "Cold \(count)-\(round)"
        let at = FanOutAppend.row(path: directory + "/books.txt", name: marker, author: "Bench")
        let arrivals = pool.arrival(of: "\"" + marker + "\"", since: at, timeoutNS: 60_000_000_000)
        guard arrivals.allSatisfy({ $0 != nil }), let last = arrivals.compactMap({ $0 }).max() else {
            Console.error("  \(arrivals.filter { $0 == nil }.count) subscribers missed the first change")
            return nil
        }
        Console.error("  first change \(CoreReport.ms(Double(last) / 1e6)) ms")
        return Double(last) / 1e6
    }
}
