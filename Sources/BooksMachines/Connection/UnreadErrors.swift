/// The error replies of one connection that are queued and not yet written, counted by where
/// each ends in the connection's output (a value; the connection's state machine keeps it).
///
/// Guarantees: ``bytes`` is the size of the error replies not yet written entirely, given
/// ``queued(_:endingAt:)`` for each error reply (in output order, `end` counted from the first
/// byte ever queued) and ``drained(_:)`` for every byte written.
struct UnreadErrors: Sendable, Hashable {
    private var ends: [Int] = []
    private var sizes: [Int] = []
    private var head = 0
    /// Bytes of error replies not yet written.
    private(set) var bytes = 0
    /// Bytes written to the connection so far, all output together.
    private(set) var written = 0

    /// An error reply of `size` bytes was queued; its last byte is at `end` (counted from the
    /// first byte ever queued: ``written`` plus the bytes queued now).
    mutating func queued(_ size: Int, endingAt end: Int) {
        ends.append(end)
        sizes.append(size)
        bytes += size
    }

    /// `count` bytes of output were written: error replies written entirely no longer count.
    mutating func drained(_ count: Int) {
        written += count
        while head < ends.count, ends[head] <= written {
            bytes -= sizes[head]
            head += 1
        }
        if head > 1024 && head * 2 > ends.count {
            ends.removeFirst(head)
            sizes.removeFirst(head)
            head = 0
        }
    }
}
