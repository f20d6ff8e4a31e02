import BooksCore
import BooksPlatform
import Dispatch

/// Where the engine, the NATS library's threads and `stop` post to the publisher's thread: a
/// bounded list under a leaf lock plus a semaphore to wake the thread. Never blocks a poster.
final class NATSPublisherInbox: Sendable {
    private struct State: Sendable {
        var changes: [SequencedChangeSet] = []
        var droppedThrough: UInt64?
        var events: [NATSPublisherInput] = []
        var stopping = false
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)

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
        wake.signal()
    }

    /// Posts a connection event.
    func post(_ input: NATSPublisherInput) {
        state.withLock { $0.events.append(input) }
        wake.signal()
    }

    /// Asks the thread to return.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    /// Waits until something is posted or `deadline` passed (nil: no deadline).
    func wait(until deadline: DispatchTime?) {
        if let deadline { _ = wake.wait(timeout: deadline) } else { wake.wait() }
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
