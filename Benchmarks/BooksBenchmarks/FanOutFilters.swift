import BooksTestSupport
import Glibc

/// `subscribers` on `filters` different `author contains …` filters; each append matches one
/// filter. Latency until the last matching subscriber has it, booksd CPU per change.
struct FanOutFilters {
    struct Result: Sendable {
        var subscribers: Int
        var filters: Int
        var changes: Int
        var last: Distribution
        var missed: Int
        var cpuPerChangeMS: Double
    }

    let options: LiveOptions
    let file: String
    let directory: String
    var subscribers: Int { options.quick ? 20 : 1_000 }
    var filters: Int { options.quick ? 5 : 50 }
    var changes: Int { options.quick ? 5 : 30 }

    static func author(_ k: Int) -> String { "Filter-" + String(1000 + k).dropFirst() }

    func run() -> Result? {
        Console.error("• fan-out filters: \(subscribers) subscribers on \(filters) filters, \(changes) appends")
        let names: [String?] = (0..<filters).map { Self.author($0) }
        guard
            let daemon = FanOutBenchmark.startDaemon(
                options: options, directory: directory, subscribers: subscribers, log: "booksd-filters.log"),
            let pool = SubscriberPool(socketPath: daemon.socketPath, count: subscribers, filters: names)
        else { return nil }
        defer {
            pool.close()
            _ = daemon.stop()
        }
        usleep(200_000)
        var last: [Double] = []
        var missed = 0
        let cpuStart = daemon.schedMS
        for k in 0..<changes {
            let target = (k * 7) % filters
            let only = (0..<subscribers).map { $0 % filters == target }
            let marker = "Filtered \(k)"
            let at = FanOutAppend.row(path: file, name: marker, author: "By " + Self.author(target))
            let arrivals = pool.arrival(of: "\"" + marker + "\"", since: at, timeoutNS: 30_000_000_000, only: only)
            let got = zip(arrivals, only).compactMap { $1 ? $0 : nil }
            missed += only.filter { $0 }.count - got.count
            if let hi = got.max() { last.append(Double(hi) / 1e6) }
            usleep(20_000)
        }
        let result = Result(
            subscribers: subscribers, filters: filters, changes: changes, last: Distribution(last), missed: missed,
            cpuPerChangeMS: (daemon.schedMS - cpuStart) / Double(changes))
        Console.error("  last matching p50 \(CoreReport.ms(result.last.p50)) ms, missed \(missed)")
        return result
    }
}
