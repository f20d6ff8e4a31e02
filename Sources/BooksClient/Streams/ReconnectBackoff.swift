/// Delays between reconnection attempts: exponential from `initial`, capped at `maximum`.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The first delay.
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration
    /// The factor between consecutive delays.
    public var multiplier: Int

    /// Creates a policy; the default is 100 ms, 200 ms, 400 ms … capped at 2 s.
    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(2), multiplier: Int = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = max(1, multiplier)
    }

    /// The delay before attempt `attempt` (0-based) of a run of failures.
    public func delay(attempt: Int) -> Duration {
        var delay = initial
        for _ in 0..<max(0, attempt) {
            delay = delay * multiplier
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }
}
