import Glibc

/// Monotonic wall-clock timing.
enum Stopwatch {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Milliseconds taken by `body`.
    static func milliseconds(_ body: () -> Void) -> Double {
        let start = now()
        body()
        return Double(now() - start) / 1e6
    }

    /// Milliseconds of CPU time (user + system) this process has used so far.
    static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let micros =
            (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
            + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return Double(micros) / 1000
    }

    /// The median of `values` (mean of the middle two for an even count).
    static func median(_ values: [Double]) -> Double {
        precondition(!values.isEmpty)
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
