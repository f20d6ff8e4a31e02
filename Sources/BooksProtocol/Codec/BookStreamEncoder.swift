import BooksCore

/// Encodes a `list` reply or a `snapshot` event a page at a time from a `BookCursor`, so the
/// whole message is never held in memory.
///
/// Two framings (docs/PROTOCOL.md §4, §6):
/// - `.singleLine` (what a client that did not ask for pages gets): the chunks concatenated are
///   exactly the bytes `MessageEncoder` would produce for the whole message — one line. Chunks
///   split it between books.
/// - `.pages`: every chunk is a complete line of its own: a reply or event carrying some of the
///   books and `"more":true`, except the last one, which has no `more` (and, for a list, `total`).
///   A sequence has at least one line; the last may have no books.
///
/// `nextChunk` is called until `isFinished`; each chunk holds at least one book when any is left
/// and stops at the first book that reaches `targetBytes`.
public struct BookStreamEncoder: Sendable {
    /// Which message is streamed.
    public enum Message: Sendable, Hashable {
        /// The reply to the `list`/`query` request with this id.
        case listReply(id: String)
        /// A subscriber's `snapshot` event.
        case snapshot
    }

    /// How the message is cut into lines.
    public enum Framing: Sendable, Hashable {
        /// One line, as without paging.
        case singleLine
        /// One line per page, `"more":true` on all but the last.
        case pages
    }

    /// The message streamed.
    public let message: Message
    /// How it is cut into lines.
    public let framing: Framing
    /// Version 2: the store a `snapshot` event names (`"store"` after `"event"`); nil writes none.
    /// Set it before the first chunk; a list reply never carries it.
    public var store: String?
    private var epoch: String
    private var seq: UInt64
    private var cursor: BookCursor
    private var started = false
    /// True once the last chunk was returned.
    public private(set) var isFinished = false
    /// True after some but not all chunks of a `.singleLine` message were returned: the peer has
    /// an unfinished line, so nothing else may be written to it until the message ends.
    public var isMidLine: Bool { framing == .singleLine && started && !isFinished }

    /// Creates an encoder for `message` at `(epoch, seq)` reading `cursor`.
    public init(_ message: Message, epoch: String, seq: UInt64, cursor: BookCursor, framing: Framing) {
        self.message = message
        self.epoch = epoch
        self.seq = seq
        self.cursor = cursor
        self.framing = framing
    }

    /// States `(epoch, seq)` instead of the position it was made at (a replica's snapshot is at the
    /// owner position its feed announced). Call before the first chunk.
    public mutating func reposition(epoch: String, seq: UInt64) {
        self.epoch = epoch
        self.seq = seq
    }

    /// The next chunk of bytes (see the type's description); empty once finished.
    public mutating func nextChunk(targetBytes: Int) -> [UInt8] {
        guard !isFinished else { return [] }
        var w = JSONWriter(capacity: targetBytes + 512)
        if framing == .pages || !started { opening(&w) }
        let wasStarted = started
        started = true
        var first = framing == .pages || !wasStarted
        cursor.next { book in
            if first { first = false } else { w.raw(UInt8(ascii: ",")) }
            w.book(book)
            return w.bytes.count < targetBytes
        }
        if cursor.isExhausted {
            isFinished = true
            closing(&w, last: true)
        } else if framing == .pages {
            closing(&w, last: false)
        }
        return w.bytes
    }

    /// Every remaining chunk joined (for tests and small messages).
    public mutating func encodeRest(targetBytes: Int = 1 << 16) -> [UInt8] {
        var all: [UInt8] = []
        while !isFinished { all.append(contentsOf: nextChunk(targetBytes: targetBytes)) }
        return all
    }

    /// Everything up to the `[` that opens the books.
    private func opening(_ w: inout JSONWriter) {
        var first = true
        w.raw(UInt8(ascii: "{"))
        switch message {
        case .listReply(let id):
            w.key("id", first: &first)
            w.string(id)
            w.key("ok", first: &first)
            w.bool(true)
            w.key("result", first: &first)
            first = true
            w.raw(UInt8(ascii: "{"))
            w.key("epoch", first: &first)
            w.string(epoch)
            w.key("seq", first: &first)
            w.unsigned(seq)
        case .snapshot:
            w.key("event", first: &first)
            w.string(Event.Kind.snapshot.rawValue)
            if let store {
                w.key("store", first: &first)
                w.string(store)
            }
            w.key("epoch", first: &first)
            w.string(epoch)
            w.key("seq", first: &first)
            w.unsigned(seq)
        }
        w.raw(",\"books\":[")
    }

    /// Everything after the books' `]`, to the end of the line.
    private func closing(_ w: inout JSONWriter, last: Bool) {
        w.raw(UInt8(ascii: "]"))
        switch message {
        case .listReply:
            if last {
                w.raw(",\"total\":")
                w.signed(cursor.total)
            } else {
                w.raw(",\"more\":true")
            }
            w.raw("}}")
        case .snapshot:
            if !last { w.raw(",\"more\":true") }
            w.raw(UInt8(ascii: "}"))
        }
        w.raw(UInt8(ascii: "\n"))
    }
}
