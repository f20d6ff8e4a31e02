import BooksCore
import BooksPlatform
import Dispatch

/// Where the engine, the NATS library's threads and `stop` post to the publisher's thread: a
/// bounded list under a leaf lock, and the thread woken (``NATSPublishingThreads``). Never
/// blocks a poster.
final class NATSPublisherInbox: Sendable {
    private struct State: Sendable {
        var changes: [SequencedChangeSet] = []
        var droppedThrough: UInt64?
        var events: [NATSPublisherInput] = []
        var stopping = false
    }

    private let state = Locked(State())
    /// Wakes the publisher's thread for it (nil until the publisher started: posts wait).
    private let waker = Locked<(@Sendable () -> Void)?>(nil)

    /// From now on, every post calls `wake`; called once with whatever was posted before.
    func wake(with wake: @escaping @Sendable () -> Void) {
        waker.withLock { $0 = wake }
        wake()
    }

    private func wake() { waker.withLock { $0 }?() }

    /// Adds a change set, or when `capacity` are waiting only records its seq (the state machine
    /// then takes the missing ones from the change log).
    func offer(_ change: SequencedChangeSet, capacity: Int) {
        state.withLock { state in
            if state.changes.count < capacity {
                state.changes.append(change)
            } else {
                state.droppedThrough = change.seq
            }
        }
        wake()
    }

    /// Posts a connection event.
    func post(_ input: NATSPublisherInput) {
        state.withLock { $0.events.append(input) }
        wake()
    }

    /// Asks the thread to return.
    func stop() {
        state.withLock { $0.stopping = true }
        wake()
    }

    /// Takes everything posted so far: events, then change sets, then the dropped seq.
    func take() -> (inputs: [NATSPublisherInput], stopping: Bool) {
        state.withLock { state in
            var inputs = state.events
            if !state.changes.isEmpty { inputs.append(.changeSets(state.changes)) }
            if let dropped = state.droppedThrough { inputs.append(.changesDropped(through: dropped)) }
            state.events.removeAll()
            state.changes.removeAll()
            state.droppedThrough = nil
            return (inputs, state.stopping)
        }
    }
}
