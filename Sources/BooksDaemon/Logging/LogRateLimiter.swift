/// Limits how often log lines of one kind are written, so a client that repeats a refused
/// request cannot flood the journal: at most `burst` lines per key in each `interval`; the first
/// line after a quiet window says how many were suppressed.
///
/// A value type with no clock of its own: callers pass the time.
public struct LogRateLimiter: Sendable {
    private struct Window: Sendable {
        var start: ContinuousClock.Instant
        var written: Int
        var suppressed: Int
    }

    /// Lines allowed per key and window.
    public let burst: Int
    /// The window's length.
    public let interval: Duration
    /// Keys tracked at most (the oldest windows are dropped beyond this).
    public let maxKeys: Int
    private var windows: [String: Window] = [:]

    /// Creates a limiter allowing `burst` lines per key every `interval`.
    public init(burst: Int = 5, interval: Duration = .seconds(60), maxKeys: Int = 1024) {
        self.burst = max(1, burst)
        self.interval = interval
        self.maxKeys = max(1, maxKeys)
    }

    /// The line to write for `message` under `key` at `now`, or nil to suppress it. A line that
    /// follows suppressed ones ends with "(N similar messages suppressed)".
    public mutating func admit(_ message: String, key: String, now: ContinuousClock.Instant) -> String? {
        var window = windows[key] ?? Window(start: now, written: 0, suppressed: 0)
        var suffix = ""
        if now - window.start >= interval {
            if window.suppressed > 0 { suffix = " (\(window.suppressed) similar messages suppressed)" }
            window = Window(start: now, written: 0, suppressed: 0)
        }
        defer {
            if windows[key] == nil, windows.count >= maxKeys {
                windows = windows.filter { now - $0.value.start < interval }
                if windows.count >= maxKeys { windows.removeAll() }
            }
            windows[key] = window
        }
        guard window.written < burst else {
            window.suppressed += 1
            return nil
        }
        window.written += 1
        return message + suffix
    }
}
