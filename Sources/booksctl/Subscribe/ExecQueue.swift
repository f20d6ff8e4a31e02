/// The change sets waiting for `subscribe --exec`'s command (pure; `ExecRunner` drives it).
///
/// Without coalescing each change set is one run, in order. With it, everything waiting when a
/// run starts is merged into that run (in order), so a burst costs one run.
struct ExecQueue: Sendable {
    private(set) var pending: [ChangeSetPayload] = []
    /// Whether runs merge every waiting change set.
    let coalesce: Bool

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
}
