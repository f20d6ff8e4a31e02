/// The change sets waiting for `subscribe --exec`'s command (pure; `ExecRunner` drives it).
///
/// Without coalescing each change set is one run, in order. With it, everything waiting when a
/// run starts is merged into that run (in order), so a burst costs one run. A run whose command
/// could not be started goes back to the front (`notStarted`): it is retried after
/// `retryDelaysMilliseconds`, then given up, and never counted as run.
struct ExecQueue: Sendable {
    private(set) var pending: [ChangeSetPayload] = []
    /// Whether runs merge every waiting change set.
    let coalesce: Bool
    /// How many times in a row the command could not be started for the run at the front.
    private(set) var failedStarts = 0

    /// The waits before each retry of a command that could not be started; after the last, give up.
    static let retryDelaysMilliseconds = [100, 500, 2000]

    /// What to do after a command could not be started.
    enum Retry: Equatable, Sendable {
        /// Try the same run again after this wait.
        case after(milliseconds: Int)
        /// Stop: the run did not happen after this many attempts (the cursor stays before it).
        case giveUp(attempts: Int)
    }

    init(coalesce: Bool) { self.coalesce = coalesce }

    /// Adds a change set at the end.
    mutating func enqueue(_ payload: ChangeSetPayload) { pending.append(payload) }

    /// The next run's payload (nil when nothing waits), removed from the queue.
    mutating func next() -> ChangeSetPayload? {
        guard !pending.isEmpty else { return nil }
        guard coalesce else { return pending.removeFirst() }
        var merged = pending.removeFirst()
        for later in pending { merged.merge(later) }
        pending.removeAll()
        return merged
    }

    /// The command ran for `payload` (whatever its exit status): the next failure counts afresh.
    mutating func ran() { failedStarts = 0 }

    /// The command could not be started for `payload`: it goes back to the front of the queue.
    mutating func notStarted(_ payload: ChangeSetPayload) -> Retry {
        pending.insert(payload, at: 0)
        failedStarts += 1
        guard failedStarts <= Self.retryDelaysMilliseconds.count else { return .giveUp(attempts: failedStarts) }
        return .after(milliseconds: Self.retryDelaysMilliseconds[failedStarts - 1])
    }
}
