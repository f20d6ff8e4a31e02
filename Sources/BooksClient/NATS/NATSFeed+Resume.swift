import BooksCore
import BooksNATS
import BooksProtocol
import FoundationEssentials

extension NATSFeed {
    /// Where to read the stream to continue after a booksd position: the stream sequence to start
    /// at, the position to hand `NATSFeedPosition`, and the gap to report first, if any.
    public struct Resume: Sendable, Equatable {
        /// Where the ordered consumer starts.
        public var start: NATSDeliveryStart
        /// The position the feed continues after.
        public var point: ResumePoint?
        /// A `.resyncRequired` to report before anything else (the position cannot be served).
        public var gap: FeedItem?

        /// A start at `start`, continuing after `point`, reporting `gap` first.
        public init(start: NATSDeliveryStart, point: ResumePoint? = nil, gap: FeedItem? = nil) {
            self.start = start
            self.point = point
            self.gap = gap
        }
    }

    /// The stream position, booksd position and books of the bucket, as `--initial` starts.
    public struct BucketState: Sendable {
        /// The books at `snapshot.seq` of `snapshot.epoch` (ordered by id).
        public var snapshot: FeedSnapshot
        /// Books the bucket already holds at a later version than `snapshot.seq` (id → version).
        public var aheadVersions: [String: UInt64]
        /// The stream sequence of the message the snapshot is at: read on from the next one.
        public var streamSequence: UInt64
        /// Every book's version as the bucket holds it (id → version; `snapshot.seq` when absent).
        public var versions: [String: UInt64] = [:]
    }

    /// The last message of the stream as a booksd position, or nil for an empty stream or one
    /// not created yet (booksd has not published: the feed waits for it).
    func lastPosition(_ jetStream: JetStream) throws(NATSError) -> (point: ResumePoint, sequence: UInt64)? {
        let found: NATSMessage?
        do {
            found = try jetStream.lastMessage(stream: names.stream, subject: subject)
        } catch {
            guard error.jetStreamCode == 10059 else { throw error }  // 10059: stream not found
            return nil
        }
        guard let last = found,
            let sequence = last.streamSequence, let event = Self.event(last)
        else { return nil }
        return (ResumePoint(epoch: event.epoch, seq: event.seq), sequence)
    }

    /// Where to read to continue after booksd's `point` (`--since EPOCH:SEQ`: the change sets
    /// with a later seq; exclusive, like the socket's resume). A plain seq (`epoch` nil) means
    /// the stream's current epoch. A point of another epoch than the stream's current one, or
    /// beyond its end, is reported as the socket reports it (`different-epoch`, `future-seq`),
    /// and the feed continues with new messages.
    ///
    /// Cost: two lookups, plus one per message (snapshot marker, part of a split change set)
    /// between the change set after `point` and its estimated place. Blocks (NATS round trips).
    public func resume(afterSeq seq: UInt64, epoch: String?) throws(BooksClientError) -> Resume {
        do throws(NATSError) {
            let jetStream = try connection.jetStream()
            guard let (last, lastSequence) = try lastPosition(jetStream) else {
                return Resume(start: .all, point: epoch.map { ResumePoint(epoch: $0, seq: seq) })
            }
            let wanted = ResumePoint(epoch: epoch ?? last.epoch, seq: seq)
            guard wanted.epoch == last.epoch, wanted.seq <= last.seq else {
                let reason = wanted.epoch == last.epoch ? "future-seq" : "different-epoch"
                return Resume(
                    start: .sequence(lastSequence + 1), point: last,
                    gap: .resyncRequired(epoch: last.epoch, seq: last.seq, reason: reason))
            }
            // Every seq after `wanted` up to `last` has a message: the first one is at or before `bound`.
            let behind = last.seq - wanted.seq
            let bound = behind >= lastSequence ? 1 : lastSequence + 1 - behind
            var candidate = bound
            while candidate > 1 {
                guard let message = try jetStream.message(stream: names.stream, sequence: candidate - 1),
                    let event = Self.event(message), event.epoch == wanted.epoch, event.seq > wanted.seq
                else { break }
                candidate -= 1
            }
            return Resume(start: .sequence(candidate), point: wanted)
        } catch {
            throw .nats(error.description)
        }
    }

    /// The books of the store's bucket with the stream's last position: the state `--initial` and
    /// `--mirror` start from (the bucket is updated before the stream, so it holds at least that
    /// position; books it holds newer are in `aheadVersions`). Nil while the stream is empty (booksd
    /// has not published yet). Blocks.
    public func bucketState() throws(BooksClientError) -> BucketState? {
        do throws(NATSError) {
            let jetStream = try connection.jetStream()
            guard let (last, lastSequence) = try lastPosition(jetStream) else { return nil }
            return try bucketState(jetStream, at: last, streamSequence: lastSequence)
        } catch {
            throw .nats(error.description)
        }
    }

    /// The bucket's books taken as the state at `point` (a snapshot marker just read at `streamSequence`).
    public func bucketState(at point: ResumePoint, streamSequence: UInt64) throws(BooksClientError) -> BucketState {
        do throws(NATSError) {
            return try bucketState(try connection.jetStream(), at: point, streamSequence: streamSequence)
        } catch {
            throw .nats(error.description)
        }
    }

    private func bucketState(
        _ jetStream: JetStream, at point: ResumePoint, streamSequence: UInt64
    ) throws(NATSError) -> BucketState {
        // Read in pages and decoded as they come: the raw bucket is never held whole.
        let decoder = JSONDecoder()
        var current: [String: (book: Book, version: UInt64?)] = [:]
        // On a connection of its own: the server may not answer the caller's pings meanwhile.
        let bulk = try jetStream.connection.bulkConnection()
        try bulk.jetStream(timeoutMilliseconds: 60_000).keyValue(names.bucket).forEachValue { key, value in
            guard let value, let entry = try? decoder.decode(BucketValue.self, from: Data(value)) else {
                current.removeValue(forKey: key)
                return
            }
            current[key] = (Book(id: entry.id, name: entry.name, author: entry.author), entry.version)
        }
        var books: [Book] = []
        books.reserveCapacity(current.count)
        var ahead: [String: UInt64] = [:]
        var versions: [String: UInt64] = [:]
        versions.reserveCapacity(current.count)
        for (book, version) in current.values {
            books.append(book)
            if let version, version > point.seq { ahead[book.id] = version }
            versions[book.id] = version ?? point.seq
        }
        current = [:]
        books.sort { $0.id < $1.id }
        return BucketState(
            snapshot: FeedSnapshot(epoch: point.epoch, seq: point.seq, books: books), aheadVersions: ahead,
            streamSequence: streamSequence, versions: versions)
    }

    /// The bucket's books with the stream's last position, as `bucketState()` reads them, each
    /// made into a `Row` (with its version, the position's seq when the bucket has none) as its
    /// value is decoded: no `Book` is kept per book (a replica keeps them as bytes), nor a second
    /// table of versions. Unordered. Nil while the stream is empty. Blocks.
    public func bucketRows<Row>(
        _ row: (Book, UInt64) -> Row
    ) throws(BooksClientError) -> (point: ResumePoint, streamSequence: UInt64, rows: [Row])? {
        do throws(NATSError) {
            let jetStream = try connection.jetStream()
            guard let (last, lastSequence) = try lastPosition(jetStream) else { return nil }
            let decoder = JSONDecoder()
            var current: [String: Row] = [:]
            let bulk = try jetStream.connection.bulkConnection()
            try bulk.jetStream(timeoutMilliseconds: 60_000).keyValue(names.bucket).forEachValue { key, value in
                guard let value, let entry = try? decoder.decode(BucketValue.self, from: Data(value)) else {
                    current.removeValue(forKey: key)
                    return
                }
                let book = Book(id: entry.id, name: entry.name, author: entry.author)
                current[key] = row(book, entry.version ?? last.seq)
            }
            return (last, lastSequence, Array(current.values))
        } catch {
            throw .nats(error.description)
        }
    }

    /// The event a stream message carries, or nil for an unreadable one.
    static func event(_ message: NATSMessage) -> Event? {
        guard case .event(let event)? = try? MessageDecoder().decode(message.data) else { return nil }
        return event
    }
}

/// A value of the bucket: `{"id","name","author","version"}`.
private struct BucketValue: Decodable {
    var id: String
    var name: String
    var author: String
    var version: UInt64?
}
