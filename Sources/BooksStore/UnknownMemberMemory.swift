import BooksPlatform

/// The unknown members (`isbn`, `notes`, …) of each book of a JSON book file as last read, so
/// that a hand edit of one alone, which leaves the canonical `id|name|author` text as it was, is
/// still reported as an update of its book.
///
/// Kept per store (the store is a value; this box lives as long as its copies). Every read of the
/// file through ``JSONBookStore/fetch()`` or ``JSONBookStore/compare(with:)`` records what it
/// found; ``take()`` hands out, once, the ids whose members differ from the read before.
public final class UnknownMemberMemory: Sendable {
    private struct State {
        /// Nil until the first read: the first read is the baseline, not an edit.
        var members: [String: [[UInt8]]]?
        var edited: Set<String> = []
    }

    private let state = Locked(State())

    /// An empty memory: the next read is the baseline.
    public init() {}

    /// Records the members read now; the ids whose members differ from the previous read are
    /// kept for ``take()``.
    func record(_ members: [String: [[UInt8]]]) {
        state.withLock { state in
            if let previous = state.members {
                for (id, value) in members where previous[id] != value { state.edited.insert(id) }
                for id in previous.keys where members[id] == nil { state.edited.insert(id) }
            }
            state.members = members
        }
    }

    /// The ids whose unknown members were edited since the last call, in id order.
    public func take() -> [String] {
        state.withLock { state in
            defer { state.edited = [] }
            return state.edited.sorted()
        }
    }
}
