import BooksProtocol

/// Puts a change set split into several stream messages back together. Pure.
///
/// booksd publishes a change set larger than the server's `max_payload` as several `change`
/// messages with the same epoch and seq, marked `"part":k,"parts":n` right after `"store"`, each
/// with a consecutive slice of the books (see docs/SCALE-OUT.md). Guarantees:
/// - A message without a marking passes through unchanged.
/// - Parts 1 to n of one change set, in order, give one event: the first part's fields with the
///   `inserted`, `updated` and `deleted` of every part concatenated in part order.
/// - A part 1 always starts over (booksd re-sends a change set whole after a failure part-way);
///   an unfinished change set followed by anything but its next part is dropped, and so is a
///   part whose change set began before the reading did; both are reported (`dropped`), never
///   delivered as if whole.
/// - Memory: at most one change set's books are held.
struct NATSPartAssembler {
    /// What one message gave.
    struct Outcome {
        /// The event to deliver, if one is complete.
        var event: Event?
        /// Why parts were dropped (for a notice), if they were.
        var dropped: String?
    }

    private var pending: Event?
    private var received = 0
    private var expected = 0

    /// Takes the next message's `event`, with its marking (`part` of `parts`) if it has one.
    mutating func add(_ event: Event, part: (index: Int, count: Int)?) -> Outcome {
        var dropped: String?
        if let pending {
            let continues =
                part.map { $0.index == received + 1 && $0.count == expected } == true
                && event.epoch == pending.epoch && event.seq == pending.seq
            if !continues {
                dropped = "change set \(pending.seq) ended after part \(received) of \(expected): dropped"
                self.pending = nil
            }
        }
        guard let part else { return Outcome(event: event, dropped: dropped) }
        if part.index == 1 {
            pending = event
            received = 1
            expected = part.count
            return Outcome(event: nil, dropped: dropped)
        }
        guard var whole = pending else {
            return Outcome(
                event: nil,
                dropped: dropped
                    ?? "change set \(event.seq) began before the first message read (part \(part.index) of \(part.count)): skipped"
            )
        }
        whole.inserted = Self.joined(whole.inserted, event.inserted)
        whole.updated = Self.joined(whole.updated, event.updated)
        whole.deleted = Self.joined(whole.deleted, event.deleted)
        received = part.index
        guard part.index == part.count else {
            pending = whole
            return Outcome(event: nil, dropped: dropped)
        }
        pending = nil
        return Outcome(event: whole, dropped: dropped)
    }

    private static func joined<T>(_ first: [T]?, _ second: [T]?) -> [T]? {
        guard let second, !second.isEmpty else { return first }
        return (first ?? []) + second
    }
}
