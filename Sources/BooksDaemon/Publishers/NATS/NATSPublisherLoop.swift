import BooksCore
import BooksNATS
import BooksProtocol
import Dispatch

/// One publisher's loop on its publishing thread (``NATSPublishingThreads``): takes inputs, runs
/// them through the state machine, carries out the actions (blocking NATS calls are fine here:
/// publishing is the thread's only job) and feeds the answers back at once, depth first, like
/// the engine.
struct NATSPublisherLoop {
    let publisher: NATSPublisher
    var machine: NATSPublisherStateMachine
    var retryAt: ContinuousClock.Instant?
    var jetStream: JetStream?
    var bucket: KeyValueStore?
    var ownerBucket: KeyValueStore?
    /// Sends the bucket updates and stream messages of a batch without a round trip each (one
    /// per publishing thread, shared by its stores' loops: each call completes before the next).
    var batchPublisher: JetStreamBatchPublisher?
    let batches: NATSBatchPublisherSlot
    /// The stream sequence of the stream's last message of this store, as last read or
    /// acknowledged (nil: unknown). A batch's first message must follow it, so a message the
    /// server lost can never be followed by a stored one.
    var lastStreamSequence: UInt64?
    var lease: NATSOwnerLease
    /// Why the lease was lost during a long action, until the next round tells the machine.
    var leaseLostDuringWork: String?
    /// The key of the message ids' tokens (random per publisher).
    let tokenKey = UInt64.random(in: .min ... .max)
    /// How long one JetStream call may take before it counts as failed.
    let timeoutMilliseconds: Int64 = 2000

    init(publisher: NATSPublisher, machine: NATSPublisherStateMachine, batches: NATSBatchPublisherSlot) {
        self.publisher = publisher
        self.machine = machine
        self.batches = batches
        lease = NATSOwnerLease(epoch: publisher.source.epoch)
    }

    /// One round, run when something was posted or the ``deadline`` came: the lease, the retry
    /// timer, then everything posted. Returns true once the publisher stopped (the loop is done).
    mutating func step() -> Bool {
        renewLeaseIfDue()
        if let retryAt, ContinuousClock.now >= retryAt {
            self.retryAt = nil
            feed(.retryTimerFired)
        }
        let (inputs, stopping) = publisher.inbox.take()
        // What was handed over before a stop (a removed store's last change set) is still
        // published when the connection is up.
        for input in inputs { feed(input) }
        if stopping, let ownerBucket { lease.release(ownerBucket) }
        return stopping
    }

    /// When the loop must run again without a post: the retry time or the lease's renewal.
    var deadline: ContinuousClock.Instant? {
        let renewal = lease.isHeld ? lease.renewedAt + NATSOwnerLease.renewEvery : nil
        return [retryAt, renewal].compactMap({ $0 }).min()
    }

    /// Keeps the single-owner lease; when it is lost (now or during a long action), stops
    /// answering requests and tells the machine.
    private mutating func renewLeaseIfDue() {
        guard let reason = renewedLease() ?? leaseLostDuringWork.take() else { return }
        publisher.ownershipChanged(false)
        feed(.ownershipLost(reason: reason))
    }

    /// Renews the lease when due; the reason it was lost, or nil while held.
    private mutating func renewedLease() -> String? {
        guard lease.renewalDue(at: .now), let ownerBucket else { return nil }
        do throws(NATSError) {
            return try lease.renew(ownerBucket) ? nil : "its lease was taken or expired"
        } catch {
            lease.drop()
            return "its lease could not be renewed (\(error))"
        }
    }

    /// Renews the lease in the middle of a long action (reading and reconciling a bucket of a
    /// million books takes longer than the lease lives); when it was lost, ends the action.
    private mutating func keepLeaseDuringLongWork() throws(NATSError) {
        guard let reason = renewedLease() else { return }
        leaseLostDuringWork = reason
        throw NATSError(context: "publishing a snapshot", text: "store \(publisher.naming.store): \(reason)")
    }

    mutating func feed(_ input: NATSPublisherInput) {
        var stack = Array(machine.handle(input).reversed())
        while let action = stack.popLast() {
            guard let answer = perform(action) else { continue }
            stack.append(contentsOf: machine.handle(answer).reversed())
        }
        if let seq = machine.publishedSeq { publisher.streamSeq.store(seq, ordering: .relaxed) }
    }

    private mutating func perform(_ action: NATSPublisherAction) -> NATSPublisherInput? {
        let naming = publisher.naming
        switch action {
        case .prepare:
            do throws(NATSError) {
                let context = try publisher.connection.jetStream(timeoutMilliseconds: timeoutMilliseconds)
                let setup = NATSStreamSetup(naming: naming, settings: publisher.settings)
                try setup.ensureStream(context)
                bucket = try setup.bucket(context)
                jetStream = context
                batchPublisher = try batches.publisher(on: publisher.connection)
                let owners = try context.keyValue(
                    naming.ownerBucketName, replicas: publisher.settings.streamReplicas,
                    ttlSeconds: NATSOwnerLease.ttlSeconds)
                ownerBucket = owners
                if let holder = try lease.acquire(owners) {
                    return .prepareFailed(
                        reason:
                            "store \(naming.store) is owned by \(holder); this booksd does not publish until it lets go"
                    )
                }
                publisher.ownershipChanged(true)
                return .prepared
            } catch {
                return .prepareFailed(reason: error.description)
            }
        case .lookUpStreamPosition:
            guard let jetStream else { return .lookupFailed(reason: "no JetStream context") }
            do throws(NATSError) {
                let last = try jetStream.lastMessage(stream: naming.streamName, subject: naming.changesSubject)
                lastStreamSequence = last?.streamSequence ?? 0
                return checked(last)
            } catch {
                return .lookupFailed(reason: error.description)
            }
        case .publish(let changes):
            do throws(NATSError) {
                let limit = messageLimit
                var publishable: [(change: SequencedChangeSet, parts: [[UInt8]])] = []
                for change in changes {
                    guard let parts = NATSPayload.changeMessages(change, store: naming.store, limit: limit) else {
                        break
                    }
                    publishable.append((change, parts))
                }
                if !publishable.isEmpty { try publish(publishable, limit: limit) }
                if publishable.count < changes.count {
                    return .unpublishable(
                        seq: changes[publishable.count].seq,
                        reason: "one of its books alone is larger than the server's max_payload (\(limit) bytes usable)"
                    )
                }
                return .published(seq: changes[changes.count - 1].seq)
            } catch {
                lastStreamSequence = nil
                return .publishFailed(reason: error.description)
            }
        case .fetchChangeLog(let after):
            return .changeLogFetched(after: after, publisher.source.changes(after: after))
        case .publishSnapshot:
            do throws(NATSError) {
                return .snapshotPublished(seq: try publishSnapshot())
            } catch {
                return .publishFailed(reason: error.description)
            }
        case .scheduleRetry(let delay):
            retryAt = ContinuousClock.now + delay
        case .log(let level, let message):
            publisher.logger.log(level, message)
        }
        return nil
    }

    /// Publishes a batch: first every bucket update (puts for inserted and updated books, deletes
    /// for deleted ones), then the change sets to the stream, each chained to the one before it
    /// (`Nats-Expected-Last-Subject-Sequence` for the first, `Nats-Expected-Last-Msg-Id` after):
    /// two round trips whatever the batch's size, and a refused message refuses all after it.
    private mutating func publish(
        _ changes: [(change: SequencedChangeSet, parts: [[UInt8]])], limit: Int
    ) throws(NATSError) {
        guard let batchPublisher else { throw NATSError(context: "publishing", text: "not prepared") }
        let naming = publisher.naming
        var updates: [NATSOutgoingMessage] = []
        for (change, _) in changes {
            for book in change.changes.inserted + change.changes.updated.map(\.new) {
                let value = NATSPayload.bucketValue(book, version: change.seq)
                guard fitsBucket(value, book: book, limit: limit) else { continue }
                updates.append(
                    .keyValuePut(bucket: naming.bucketName, key: NATSNaming.key(forBookID: book.id), value: value))
            }
            for book in change.changes.deleted {
                updates.append(.keyValueDelete(bucket: naming.bucketName, key: NATSNaming.key(forBookID: book.id)))
            }
        }
        try batchPublisher.publish(updates, timeoutMilliseconds: timeoutMilliseconds)
        var messages: [NATSOutgoingMessage] = []
        var previousID: String?
        for (change, parts) in changes {
            for (index, data) in parts.enumerated() {
                let part = NATSMessagePart(index: index + 1, count: parts.count)
                let id = naming.messageID(
                    epoch: change.epoch, seq: change.seq, part: part,
                    token: token(change.epoch, change.seq, part: index + 1))
                messages.append(
                    NATSOutgoingMessage(
                        subject: naming.changesSubject, data: data, messageID: id, expectedLastMessageID: previousID,
                        expectedLastSubjectSequence: previousID == nil ? lastStreamSequence : nil))
                previousID = id
            }
        }
        lastStreamSequence = nil
        lastStreamSequence = try batchPublisher.publish(messages, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Makes the bucket equal to the engine's books (none, for `snapshotsEmptyStart`), then
    /// publishes a snapshot marker; returns its seq.
    private mutating func publishSnapshot() throws(NATSError) -> UInt64 {
        guard bucket != nil, let jetStream else {
            throw NATSError(context: "publishing a snapshot", text: "not prepared")
        }
        let naming = publisher.naming
        // A store that appeared: its empty seq 0 first, its books then follow as change set 1.
        let (seq, books) = machine.snapshotsEmptyStart ? (0, []) : publisher.source.currentBooks()
        // Only what differs is written (versions included: they are what conditional updates
        // compare), so an unchanged bucket costs one read.
        var stale = try NATSBucketReader.values(of: naming.bucketName, on: publisher.connection) {
            () throws(NATSError) in try keepLeaseDuringLongWork()
        }
        var updates: [NATSOutgoingMessage] = []
        var written = 0
        for (index, versioned) in books.enumerated() {
            if index % 4096 == 4095 { try keepLeaseDuringLongWork() }
            let book = versioned.book
            let key = NATSNaming.key(forBookID: book.id)
            let value = NATSPayload.bucketValue(book, version: versioned.version)
            if stale.removeValue(forKey: key) != value, fitsBucket(value, book: book, limit: messageLimit) {
                updates.append(.keyValuePut(bucket: naming.bucketName, key: key, value: value))
                written += 1
            }
            if updates.count >= 4096 {  // bounded memory at 1M books
                try batchPublisher?.publish(updates, timeoutMilliseconds: timeoutMilliseconds)
                updates.removeAll(keepingCapacity: true)
            }
        }
        for key in stale.keys { updates.append(.keyValueDelete(bucket: naming.bucketName, key: key)) }
        try batchPublisher?.publish(updates, timeoutMilliseconds: timeoutMilliseconds)
        let marker = NATSPayload.snapshotMarker(
            store: naming.store, epoch: publisher.source.epoch, seq: seq, books: books.count, bucket: naming.bucketName)
        lastStreamSequence = nil
        lastStreamSequence = try jetStream.publish(
            marker, to: naming.changesSubject,
            messageID: naming.messageID(
                epoch: publisher.source.epoch, seq: seq, snapshot: true,
                token: token(publisher.source.epoch, seq, part: 0)),
            timeoutMilliseconds: timeoutMilliseconds
        ).sequence
        publisher.logger.notice(
            """
            NATS: bucket \(naming.bucketName) reconciled with \(books.count) books (\(written) written, \
            \(stale.count) deleted); snapshot marker at seq \(seq)
            """)
        return seq
    }

    /// The largest stream message or bucket value: the server's `max_payload` as the connection
    /// reports it, less room for the headers.
    var messageLimit: Int { max(publisher.connection.maxPayload, 8192) - 1024 }

    /// A bucket value that fits the server's limit; one that does not is logged and left out.
    private func fitsBucket(_ value: [UInt8], book: Book, limit: Int) -> Bool {
        guard value.count > limit else { return true }
        publisher.logger.error(
            "NATS: book \(book.id) (\(value.count) bytes) is larger than the server's max_payload: not in the bucket")
        return false
    }

    /// The part of a message id nobody else can predict (a keyed hash of the position): a message
    /// published ahead of booksd cannot take the id of a later one and be kept as a duplicate.
    private func token(_ epoch: String, _ seq: UInt64, part: Int) -> String {
        var hasher = Hasher()  // seeded at random per process
        hasher.combine(tokenKey)
        hasher.combine(epoch)
        hasher.combine(seq)
        hasher.combine(part)
        return String(UInt64(bitPattern: Int64(hasher.finalize())), radix: 16)
    }

    /// The stream's last message as an answer: its position if it matches the local history.
    private func checked(_ last: NATSMessage?) -> NATSPublisherInput {
        let check = NATSStreamCheck(naming: publisher.naming, epoch: publisher.source.epoch)
        let compared = check.seqToCompare(messageID: last?.messageID)
        let local = compared.flatMap { seq in
            seq == 0 ? nil : publisher.source.changes(after: seq - 1)?.first { $0.seq == seq }
        }
        let latest = publisher.source.changes(after: machine.latestSeq)?.last?.seq ?? machine.latestSeq
        switch check.verdict(data: last?.data, messageID: last?.messageID, latestSeq: latest, local: local) {
        case .position(let position): return .streamPositionFound(position)
        case .untrusted(let reason):
            return .streamEndUntrusted(
                reason:
                    "stream sequence \(last?.streamSequence ?? 0): \(reason); check who may publish on \(publisher.naming.changesSubject)"
            )
        }
    }
}
