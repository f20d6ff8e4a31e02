import BooksCore
import BooksProtocol
import FoundationEssentials

@testable import BooksMachines

/// Carries out a ``NATSPublisherStateMachine``'s actions against an in-memory stream and change
/// log: the pure core with no NATS, no thread and no clock. The test decides when the server is
/// reachable and which publish fails (before or after the server stored the message).
struct NATSPublisherDriver {
    enum Failure { case beforeStore, afterStore }

    static let naming = NATSNaming(prefix: "books", store: "default")
    var machine: NATSPublisherStateMachine
    let epoch: String
    /// The stream's messages for the store, as `Nats-Msg-Id`s, in stream order.
    var stream: [String]
    /// The engine's change log and its oldest replayable point.
    var engineLog: [SequencedChangeSet] = []
    var logReachesBackTo: UInt64 = 0
    var engineSeq: UInt64
    var reachable = true
    var failNextPublishes: [Failure] = []
    var retryScheduled = false
    var logs: [(LogLevel, String)] = []
    var snapshots = 0
    /// Change sets the shell cannot publish at all (`.unpublishable`).
    var unpublishable: Set<UInt64> = []
    /// How many of the next lookups find a last message that does not match the local history.
    var untrustedLookups = 0
    /// The seqs of each `.publish` action, in order.
    var batches: [[UInt64]] = []

    init(
        epoch: String = "E", startSeq: UInt64 = 0, stream: [String] = [], capacity: Int = 4096, batchLimit: Int = 256
    ) {
        self.epoch = epoch
        self.stream = stream
        engineSeq = startSeq
        logReachesBackTo = startSeq
        machine = NATSPublisherStateMachine(
            configuration: .init(epoch: epoch, bufferCapacity: capacity, batchLimit: batchLimit), startSeq: startSeq)
    }

    /// The engine applies a change set touching book `id`; it is handed to the publisher.
    mutating func edit(_ id: String = "b", handOver: Bool = true) {
        let change = apply(id)
        if handOver { feed(.changeSet(change)) } else { feed(.changesDropped(through: engineSeq)) }
    }

    /// The engine applies `count` change sets while the publisher is busy; they are handed over together.
    mutating func edits(_ count: Int) {
        let changes = (0..<count).map { _ in apply("b") }
        feed(.changeSets(changes))
    }

    private mutating func apply(_ id: String) -> SequencedChangeSet {
        engineSeq += 1
        let change = SequencedChangeSet(
            epoch: epoch, seq: engineSeq, source: .file, time: Date(timeIntervalSince1970: 0),
            changes: ChangeSet(inserted: [Book(id: "\(id)\(engineSeq)", name: "n", author: "a")]))
        engineLog.append(change)
        return change
    }

    /// The engine's log keeps only change sets after `seq`.
    mutating func trimLog(after seq: UInt64) {
        engineLog.removeAll { $0.seq <= seq }
        logReachesBackTo = seq
    }

    mutating func connect() {
        reachable = true
        feed(.connected)
    }

    mutating func disconnect() {
        reachable = false
        feed(.disconnected)
    }

    mutating func fireRetry() {
        guard retryScheduled else { return }
        retryScheduled = false
        feed(.retryTimerFired)
    }

    /// The seqs of this lineage's change-set messages in the stream, in order.
    var publishedSeqs: [UInt64] {
        stream.compactMap { id in
            guard !id.hasSuffix(":snapshot"), let position = Self.naming.position(fromMessageID: id),
                position.epoch == epoch
            else { return nil }
            return position.seq
        }
    }

    /// The engine applies a change set the publisher has not heard of yet (its hand-over is late).
    mutating func editUnannounced() {
        engineSeq += 1
        engineLog.append(
            SequencedChangeSet(
                epoch: epoch, seq: engineSeq, source: .file, time: Date(timeIntervalSince1970: 0),
                changes: ChangeSet(inserted: [Book(id: "late\(engineSeq)", name: "n", author: "a")])))
    }

    /// Actions carried out so far (a runaway loop stops at 10,000).
    var actionCount = 0

    mutating func feed(_ input: NATSPublisherInput) {
        var stack = Array(machine.handle(input).reversed())
        while let action = stack.popLast(), actionCount < 10_000 {
            actionCount += 1
            guard let answer = perform(action) else { continue }
            stack.append(contentsOf: machine.handle(answer).reversed())
        }
    }

    private mutating func perform(_ action: NATSPublisherAction) -> NATSPublisherInput? {
        switch action {
        case .prepare:
            return reachable ? .prepared : .prepareFailed(reason: "unreachable")
        case .lookUpStreamPosition:
            guard reachable else { return .lookupFailed(reason: "unreachable") }
            if untrustedLookups > 0 {
                untrustedLookups -= 1
                return .streamEndUntrusted(reason: "it differs from the local history")
            }
            return .streamPositionFound(stream.last.flatMap(Self.naming.position(fromMessageID:)))
        case .publish(let all):
            guard reachable else { return .publishFailed(reason: "unreachable") }
            batches.append(all.map(\.seq))
            let bad = all.first { unpublishable.contains($0.seq) }
            let changes = all.prefix { !unpublishable.contains($0.seq) }
            let failure = failNextPublishes.isEmpty ? nil : failNextPublishes.removeFirst()
            if failure == .beforeStore { return .publishFailed(reason: "timeout") }
            for change in changes {
                let id = Self.naming.messageID(epoch: change.epoch, seq: change.seq)
                if !stream.suffix(100).contains(id) { stream.append(id) }  // the duplicate window
            }
            if failure == .afterStore { return .publishFailed(reason: "ack lost") }
            if let bad { return .unpublishable(seq: bad.seq, reason: "a book is larger than max_payload") }
            return .published(seq: changes[changes.count - 1].seq)
        case .fetchChangeLog(let after):
            guard after >= logReachesBackTo else { return .changeLogFetched(after: after, nil) }
            return .changeLogFetched(after: after, engineLog.filter { $0.seq > after })
        case .publishSnapshot:
            guard reachable else { return .publishFailed(reason: "unreachable") }
            snapshots += 1
            stream.append(Self.naming.messageID(epoch: epoch, seq: engineSeq, snapshot: true))
            return .snapshotPublished(seq: engineSeq)
        case .scheduleRetry:
            retryScheduled = true
        case .log(let level, let message):
            logs.append((level, message))
        }
        return nil
    }
}
