import BooksCore
import BooksProtocol

/// The decisions of the NATS publisher, free of I/O: which change set goes to the stream next,
/// when to catch up from the engine's change log, when to publish a snapshot instead.
///
/// Guarantees (given a shell that carries out actions as documented on `NATSPublisherAction`):
/// - The stream receives this engine's change sets in seq order without gaps: a change set is
///   published only when the stream is known to end exactly one seq before it.
/// - Nothing is published twice on purpose: after every failure or reconnect the stream's last
///   message is read again before anything else is published (the server's duplicate window on
///   `Nats-Msg-Id` covers a retry whose acknowledgement was lost).
/// - When the stream ends in another lineage (a restarted engine), ends nowhere, or the change log
///   no longer reaches back to its end, one snapshot marker is published instead of the missing
///   change sets, after the bucket was made equal to the books. (A lineage that began empty —
///   `Configuration.beganEmpty` — starts an empty stream with the marker of its empty seq 0,
///   then its change sets from seq 1: see `snapshotsEmptyStart`.)
/// - Memory is bounded: at most `bufferCapacity` change sets wait (more are dropped and later
///   fetched from the change log), plus one change-log batch.
/// - At most one action with an answer is outstanding; nothing is started while disconnected.
/// - The stream's last message is believed only when it matches the local history (the shell
///   checks it, `NATSStreamCheck`); one that does not, and a change set that cannot be published
///   at all, are logged and followed by a snapshot marker: nothing stops later change sets.
/// - Change sets waiting in order are published as one batch (at most `batchLimit`): the cost of a
///   round trip to JetStream is paid per batch, not per change set.
package struct NATSPublisherStateMachine: Sendable {
    /// Fixed settings.
    package struct Configuration: Sendable, Equatable {
        /// The engine's lineage (`BookEngine.epoch`).
        package var epoch: String
        /// Change sets kept while the stream is behind.
        package var bufferCapacity: Int
        /// Pause after a failure before trying again.
        package var retryDelay: Duration
        /// Most change sets published in one batch (one round trip for the bucket, one for the stream).
        package var batchLimit: Int
        /// The lineage began with no books at seq 0 (a store that appeared while the daemon runs):
        /// an empty stream then gets the snapshot marker of that empty seq 0, and its change sets
        /// from seq 1 (its books as inserts).
        package var beganEmpty: Bool

        /// Settings of these values, the others at their defaults (given here only).
        package init(
            epoch: String, bufferCapacity: Int = 4096, retryDelay: Duration = .milliseconds(500), batchLimit: Int = 256,
            beganEmpty: Bool = false
        ) {
            self.epoch = epoch
            self.bufferCapacity = bufferCapacity
            self.retryDelay = retryDelay
            self.batchLimit = batchLimit
            self.beganEmpty = beganEmpty
        }
    }

    /// The outstanding action, if any.
    package enum Operation: Sendable, Equatable {
        case preparing
        case lookingUp
        case publishing(UInt64)
        case fetching
        case snapshotting
    }

    /// What is known about the end of the stream.
    package enum StreamEnd: Sendable, Equatable {
        /// Must be read (at start, after a reconnect or a failure).
        case unknown
        /// The last message of this store (nil: the stream has none).
        case known(ResumePoint?)
    }

    package let configuration: Configuration
    package private(set) var connected = false
    package private(set) var prepared = false
    package private(set) var streamEnd = StreamEnd.unknown
    /// Change sets of this lineage not yet known to be in the stream, in seq order.
    package private(set) var buffer: [SequencedChangeSet] = []
    /// The highest seq the engine reported.
    package private(set) var latestSeq: UInt64 = 0
    package private(set) var operation: Operation?
    package private(set) var waitingForRetry = false
    /// Whether the last attempt failed (failures are logged once, then the recovery).
    package private(set) var failing = false
    package private(set) var overflowing = false
    /// Whether the connection was lost since it was last up (for the log).
    package private(set) var lostConnection = false

    /// A publisher for the engine whose lineage is `configuration.epoch`, at `startSeq`.
    package init(configuration: Configuration, startSeq: UInt64) {
        self.configuration = configuration
        latestSeq = startSeq
    }

    /// Whether the snapshot to publish now is the empty one at seq 0 (a lineage that began empty,
    /// on a stream without messages), after which the change log is published from seq 1.
    package var snapshotsEmptyStart: Bool { configuration.beganEmpty && streamEnd == .known(nil) }

    /// The position the stream is known to have reached in this lineage (nil: unknown or other).
    package var publishedSeq: UInt64? {
        guard case .known(let end?) = streamEnd, end.epoch == configuration.epoch else { return nil }
        return end.seq
    }

    /// Applies `input`; returns what to do, in order.
    package mutating func handle(_ input: NATSPublisherInput) -> [NATSPublisherAction] {
        var actions: [NATSPublisherAction] = []
        switch input {
        case .changeSet(let change):
            actions += accept(change)
        case .changeSets(let changes):
            for change in changes { actions += accept(change) }
        case .changesDropped(let through):
            latestSeq = max(latestSeq, through)
        case .connected:
            if lostConnection { actions.append(.log(.notice, "NATS connection back: catching up")) }
            connected = true
            lostConnection = false
            streamEnd = .unknown
        case .disconnected:
            if connected {
                actions.append(.log(.warning, "NATS connection lost: local service goes on, publishing resumes later"))
            }
            connected = false
            lostConnection = true
        case .prepared:
            operation = nil
            prepared = true
        case .prepareFailed(let reason):
            operation = nil
            actions += failure("cannot prepare the NATS stream and bucket: \(reason)")
        case .streamPositionFound(let end):
            operation = nil
            streamEnd = .known(end)
            // The engine is at least where its own stream is (its hand-over may still be on the way).
            if let end, end.epoch == configuration.epoch { latestSeq = max(latestSeq, end.seq) }
        case .streamEndUntrusted(let reason):
            operation = nil
            streamEnd = .known(nil)  // continued with a snapshot marker: consumers read the bucket
            actions.append(
                .log(
                    .warning,
                    "NATS stream's last message is not believed (\(reason)): publishing a snapshot marker after it"))
        case .lookupFailed(let reason):
            operation = nil
            actions += failure("cannot read the NATS stream's last message: \(reason)")
        case .published(let seq):
            operation = nil
            streamEnd = .known(ResumePoint(epoch: configuration.epoch, seq: seq))
            actions += recovered()
        case .unpublishable(let seq, let reason):
            operation = nil
            streamEnd = .known(nil)  // the batch before it is stored; a snapshot marker covers seq
            buffer.removeAll { $0.seq <= seq }
            actions.append(
                .log(
                    .error,
                    "NATS: change set \(seq) cannot be published (\(reason)): skipped, a snapshot marker follows"))
        case .publishFailed(let reason):
            operation = nil
            streamEnd = .unknown  // it may have been stored: read the stream's end again
            actions += failure("NATS publishing failed, will retry: \(reason)")
        case .changeLogFetched(let after, let changes):
            operation = nil
            guard let changes else { return start(.snapshotting, .publishSnapshot) }
            merge(changes.filter { $0.seq > after })
        case .snapshotPublished(let seq):
            operation = nil
            latestSeq = max(latestSeq, seq)
            streamEnd = .known(ResumePoint(epoch: configuration.epoch, seq: seq))
            actions += recovered()
        case .ownershipLost(let reason):
            prepared = false
            streamEnd = .unknown
            actions += failure("this booksd no longer owns the store: \(reason)")
        case .retryTimerFired:
            waitingForRetry = false
        }
        return actions + next()
    }

    /// Buffers a change set of this lineage not yet in the stream (or, when the buffer is full,
    /// leaves it to the change log).
    private mutating func accept(_ change: SequencedChangeSet) -> [NATSPublisherAction] {
        guard change.epoch == configuration.epoch else { return [] }
        latestSeq = max(latestSeq, change.seq)
        if let seq = publishedSeq, change.seq <= seq { return [] }
        if buffer.count >= configuration.bufferCapacity {
            guard !overflowing else { return [] }
            overflowing = true
            return [
                .log(
                    .warning,
                    """
                    NATS publishing is \(buffer.count) change sets behind: later ones are taken from the \
                    change log when it catches up
                    """)
            ]
        }
        if buffer.last.map({ $0.seq < change.seq }) ?? true { buffer.append(change) }
        return []
    }

    /// The next action when nothing is outstanding.
    private mutating func next() -> [NATSPublisherAction] {
        guard connected, operation == nil, !waitingForRetry else { return [] }
        guard prepared else { return start(.preparing, .prepare) }
        guard case .known(let end) = streamEnd else { return start(.lookingUp, .lookUpStreamPosition) }
        guard let end, end.epoch == configuration.epoch else {
            return start(.snapshotting, .publishSnapshot)
        }
        if let first = buffer.firstIndex(where: { $0.seq > end.seq }) {
            buffer.removeFirst(first)
        } else {
            buffer.removeAll()
        }
        if let first = buffer.first, first.seq == end.seq + 1 {
            // Every consecutive buffered change set goes in one batch (they are consecutive by
            // construction; the check keeps a gap impossible even if that changed).
            var batch = [first]
            for change in buffer.dropFirst() {
                guard batch.count < configuration.batchLimit, change.seq == batch[batch.count - 1].seq + 1 else {
                    break
                }
                batch.append(change)
            }
            return start(.publishing(batch[batch.count - 1].seq), .publish(batch))
        }
        if latestSeq > end.seq { return start(.fetching, .fetchChangeLog(after: end.seq)) }
        return []
    }

    private mutating func start(_ operation: Operation, _ action: NATSPublisherAction) -> [NATSPublisherAction] {
        self.operation = operation
        return [action]
    }

    private mutating func failure(_ message: String) -> [NATSPublisherAction] {
        waitingForRetry = true
        var actions: [NATSPublisherAction] = []
        if !failing { actions.append(.log(.warning, message)) }
        failing = true
        actions.append(.scheduleRetry(configuration.retryDelay))
        return actions
    }

    private mutating func recovered() -> [NATSPublisherAction] {
        var actions: [NATSPublisherAction] = []
        if failing, let seq = publishedSeq {
            actions.append(.log(.notice, "NATS publishing recovered: the stream holds seq \(seq)"))
        }
        failing = false
        if overflowing, buffer.isEmpty || buffer.count < configuration.bufferCapacity / 2 { overflowing = false }
        return actions
    }

    /// Puts fetched change sets (consecutive, oldest first) before the buffered ones they precede.
    private mutating func merge(_ fetched: [SequencedChangeSet]) {
        guard let last = fetched.last else { return }
        buffer = fetched + buffer.filter { $0.seq > last.seq }
        latestSeq = max(latestSeq, last.seq)
    }
}
