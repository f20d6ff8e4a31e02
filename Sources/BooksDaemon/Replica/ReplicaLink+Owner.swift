import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import FoundationEssentials
import Glibc

/// The replica's two conversations with the owner: its stream (read on the feed thread) and its
/// api subject (conditional writes, on the machine's thread).
extension ReplicaLink {
    /// Reads the owner's stream from the record's position (or its bucket first, when the record
    /// has none or the stream cannot continue it) and posts every change set, in order.
    func followOwner() {
        let feed = NATSFeed(connection: connection, prefix: prefix, store: store)
        var posted: (epoch: String, seq: UInt64)?
        var quiet = false
        while !stopped.load(ordering: .acquiring) {
            let (epoch, seq, wantsSnapshot) = position.withLock { $0 }
            let start: NATSDeliveryStart
            do throws(BooksClientError) {
                if let epoch, !wantsSnapshot {
                    let resume = try feed.resume(afterSeq: seq, epoch: epoch)
                    if resume.gap != nil {
                        position.withLock { $0.wantsSnapshot = true }
                        continue
                    }
                    start = resume.start
                    posted = posted ?? (epoch, seq)
                } else {
                    // Each book kept as bytes as it is read: no table of the bucket's books.
                    guard let state = try feed.bucketRows(ReplicaBook.init(book:version:)) else {
                        if !quiet { logger.info("replica: the owner has not published store '\(store)' yet", fields) }
                        quiet = true
                        pause(milliseconds: 500)
                        continue
                    }
                    position.withLock { $0.wantsSnapshot = false }
                    post(.ownerSnapshot(epoch: state.point.epoch, seq: state.point.seq, books: state.rows))
                    posted = (state.point.epoch, state.point.seq)
                    start = .sequence(state.streamSequence + 1)
                }
                quiet = false
            } catch {
                if !quiet { logger.info("replica: cannot read the owner's stream yet (\(error)); retrying", fields) }
                quiet = true
                pause(milliseconds: 500)
                continue
            }
            feed.run(
                from: start, onNotice: { [logger, fields] in logger.info("replica: \($0)", fields) },
                isCancelled: { [self] in
                    stopped.load(ordering: .acquiring) || position.withLock { $0.wantsSnapshot }
                }
            ) { item in
                let event = item.event
                ownerBacklog.store(item.pending, ordering: .relaxed)
                switch event.event {
                case .change:
                    posted = (event.epoch, event.seq)
                    post(.ownerChanged(Self.changeSet(event)))
                case .snapshot:
                    // A marker at or before what was read is no gap; any other means change sets
                    // may be missing: the bucket is read again.
                    if let last = posted, last.epoch == event.epoch, event.seq <= last.seq { return true }
                    position.withLock { $0.wantsSnapshot = true }
                    return false
                default:
                    break
                }
                return true
            }
        }
    }

    /// A change event of the owner's stream as the owner's change set: its time (when the owner
    /// applied it; the replica's clock only for an event without a readable time), source, actor
    /// and, for a merged save or a file edit that reverted writes, what it merged or reverted.
    static func changeSet(_ event: Event) -> SequencedChangeSet {
        var change = SequencedChangeSet(
            epoch: event.epoch, seq: event.seq, source: event.source ?? .nats,
            time: event.time.flatMap(ISO8601.parse) ?? Date(),
            changes: ChangeSet(
                inserted: event.inserted ?? [], updated: event.updated ?? [], deleted: event.deleted ?? []),
            actor: event.actor)
        change.mergedBase = event.merged?.base
        change.reverts = event.reverts
        return change
    }

    /// Sends `write` to the owner as one conditional request and waits for the answer (at most 5 s).
    func send(_ write: ReplicaWrite) -> ReplicaSendOutcome {
        let replicaID = machine.withLock { $0?.record.replicaID ?? "" }
        var request: Request
        if !write.inserted.isEmpty {
            request = Request(id: "\(replicaID):\(write.token)", op: .insert)
            request.books = write.inserted.map { BookDraft(id: $0.id, name: $0.name, author: $0.author) }
        } else {
            request = Request(id: "\(replicaID):\(write.token)", op: .save)
            request.updated = write.updated.map {
                BookPatch(id: $0.book.id, name: $0.book.name, author: $0.book.author, expectedVersion: $0.expected)
            }
            request.deleted = write.deleted.map { BookDeletion(id: $0.id, expectedVersion: $0.expected) }
            if request.updated?.isEmpty == true { request.updated = nil }
            if request.deleted?.isEmpty == true { request.deleted = nil }
            request.base = write.base
        }
        let message: NATSMessage
        do {
            let line = try RequestEncoder.encode(request)
            message = try connection.request(
                line, to: apiSubject, headers: Self.actorHeader(handEditActor(of: write)), timeoutMilliseconds: 5000)
        } catch let error as NATSError where error.isNoResponders {
            return .failed("the owner of store '\(store)' does not answer on \(apiSubject)")
        } catch {
            return .failed("\(error)")
        }
        guard case .reply(let reply)? = try? MessageDecoder().decode(message.data) else {
            return .failed("an unreadable answer on \(apiSubject)")
        }
        if reply.ok {
            editActors.withLock { $0.sent(write.ids) }
            return .accepted(seq: reply.result?.seq ?? 0)
        }
        guard let error = reply.error else { return .failed("refused without a reason") }
        if error.code == .conflict {
            let listed = error.conflicts ?? []
            return .conflicts(
                listed.isEmpty
                    ? write.ids.map { BookConflict(id: $0, current: nil, currentVersion: nil, message: error.message) }
                    : listed)
        }
        if error.code == .baseNotKept, write.base != nil {
            logger.notice(
                "replica: the owner cannot merge an edit from its base (\(error)); sent again without", fields)
            return .baseNotKept(error.description)
        }
        logger.warning("replica: the owner refused an edit (\(error)); retried", fields)
        return .failed(error.description)
    }
}

private func pause(milliseconds: Int) {
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 { request = remaining }
}
