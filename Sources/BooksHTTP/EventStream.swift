import BooksCore
import BooksProtocol

/// One SSE client's feed: the events waiting to be written, bounded. Pure: the I/O shell offers
/// events (from the engine's queue) and asks for bytes (when the socket can take them).
///
/// Guarantees:
/// - Events come out in the order offered, each once, as `id: EPOCH:SEQ`, `event: NAME`,
///   `data: JSON` (the socket protocol's event line) and a blank line; heartbeats are comments.
/// - Change events at or below `afterSeq` (already sent, or before the resume point) are dropped.
/// - Memory is bounded: when waiting bytes would pass `limitBytes` (one event alone may) the stream is cut off — the
///   queue is dropped and the next `read` ends the response; the client resumes from its last
///   event id (nothing is lost: the change log replays the rest).
public struct EventStream: Sendable {
    /// What `read` returns.
    public enum Output: Sendable, Hashable {
        /// Write these bytes.
        case bytes([UInt8])
        /// Nothing to write now: park until an offer.
        case wait
        /// The client was too slow: end the response (with an error; the connection closes).
        case cutOff
    }

    /// The largest backlog before the client is cut off.
    public let limitBytes: Int
    /// The last change seq queued.
    public private(set) var afterSeq: UInt64
    /// For a feed of several stores: each store's position after the last event queued (the
    /// events' ids are `StoresEventID`s of them); nil for one store's feed.
    public private(set) var positions: [String: ResumePoint]?
    private var queue: [[UInt8]] = []
    private var head = 0
    private var offset = 0
    /// Bytes waiting.
    public private(set) var pendingBytes = 0
    /// True once cut off.
    public private(set) var isCutOff = false

    /// A stream starting after `afterSeq`, opened with `retry:` and a comment so the client sees
    /// the stream at once.
    public init(limitBytes: Int, afterSeq: UInt64, retryMilliseconds: Int = 2000) {
        self.limitBytes = limitBytes
        self.afterSeq = afterSeq
        append(Array("retry: \(retryMilliseconds)\n: booksd change feed\n\n".utf8))
    }

    /// A feed of several stores: every event names its store (`Event.store`), change events are
    /// dropped per store at or below its position, and each id carries every store's position.
    public init(stores limitBytes: Int, retryMilliseconds: Int = 2000) {
        self.init(limitBytes: limitBytes, afterSeq: 0, retryMilliseconds: retryMilliseconds)
        positions = [:]
    }

    /// Several stores: `store` is followed from `point` (its later change events at or below
    /// `point.seq` are dropped). A store already followed keeps a later position.
    public mutating func follow(_ store: String, from point: ResumePoint) {
        guard var all = positions else { return }
        if let known = all[store], known.epoch == point.epoch, known.seq >= point.seq { return }
        all[store] = point
        positions = all
    }

    /// Queues `event` (a `change`, `resync-required`, `store-added`, `store-removed` or
    /// `heartbeat`; others are ignored). Returns false when nothing was queued.
    @discardableResult
    public mutating func offer(_ event: Event) -> Bool {
        guard !isCutOff else { return false }
        if positions != nil { return offerOfStores(event) }
        let frame: [UInt8]
        switch event.event {
        case .change:
            guard event.seq > afterSeq else { return false }
            afterSeq = event.seq
            frame = Self.frame(event, name: "change")
        case .resyncRequired:
            afterSeq = max(afterSeq, event.seq)
            frame = Self.frame(event, name: "resync")
        case .storeAdded: frame = Self.frame(event, name: "store-added")
        case .storeRemoved: frame = Self.frame(event, name: "store-removed")
        case .heartbeat:
            frame = Array(": heartbeat \(EventID.format(epoch: event.epoch, seq: event.seq))\n\n".utf8)
        default:
            return false
        }
        return append(frame)
    }

    /// `offer` for a feed of several stores.
    private mutating func offerOfStores(_ event: Event) -> Bool {
        guard var all = positions else { return false }
        let point = ResumePoint(epoch: event.epoch, seq: event.seq)
        let name: String
        switch (event.event, event.store) {
        case (.heartbeat, _):
            return append(Array(": heartbeat\n\n".utf8))
        case (.change, let store?):
            if let known = all[store], known.epoch == event.epoch, event.seq <= known.seq { return false }
            all[store] = point
            name = "change"
        case (.resyncRequired, let store?):
            all[store] = point
            name = "resync"
        case (.storeAdded, let store?):
            all[store] = point
            name = "store-added"
        case (.storeRemoved, let store?):
            all[store] = nil
            name = "store-removed"
        default:
            return false
        }
        positions = all
        return append(Self.frame(event, name: name, id: StoresEventID.format(all)))
    }

    /// Drops later change events at or below `seq` (the position a subscription starts after,
    /// once its replayed events were offered).
    public mutating func skip(through seq: UInt64) {
        afterSeq = max(afterSeq, seq)
    }

    /// Up to `maxBytes` of what waits.
    public mutating func read(maxBytes: Int) -> Output {
        if isCutOff { return .cutOff }
        guard head < queue.count else { return .wait }
        var out: [UInt8] = []
        while head < queue.count, out.count < maxBytes {
            let frame = queue[head]
            let take = min(maxBytes - out.count, frame.count - offset)
            out.append(contentsOf: frame[offset..<(offset + take)])
            offset += take
            if offset == frame.count {
                queue[head] = []
                head += 1
                offset = 0
            }
        }
        pendingBytes -= out.count
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return .bytes(out)
    }

    /// `id:`/`event:`/`data:` of `event` (its JSON is one line: no `data:` continuation needed).
    static func frame(_ event: Event, name: String, id: String? = nil) -> [UInt8] {
        var line = MessageEncoder.encode(event)
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        let id = id ?? EventID.format(epoch: event.epoch, seq: event.seq)
        var out = Array("id: \(id)\nevent: \(name)\ndata: ".utf8)
        out.append(contentsOf: line)
        out.append(contentsOf: Array("\n\n".utf8))
        return out
    }

    @discardableResult
    private mutating func append(_ frame: [UInt8]) -> Bool {
        // One event larger than the limit still goes to a client that keeps up (nothing waits).
        guard pendingBytes == 0 || pendingBytes + frame.count <= limitBytes else {
            isCutOff = true
            queue = []
            head = 0
            offset = 0
            pendingBytes = 0
            return false
        }
        queue.append(frame)
        pendingBytes += frame.count
        return true
    }
}
