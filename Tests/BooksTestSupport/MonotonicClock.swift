import Glibc

/// Time on `CLOCK_MONOTONIC` and the two ways tests wait: blocking this thread, or suspending.
public enum MonotonicClock {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds on `CLOCK_MONOTONIC`.
    public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Blocks the calling thread for `seconds` (no-op when not positive).
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        usleep(UInt32(min(seconds, 4000) * 1e6))
    }

    /// Suspends the calling task for `seconds` without blocking a thread of the cooperative pool.
    public static func pause(seconds: Double) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
    }
}
