import BooksProtocol

/// The two modes beside the protocol `State`: how output reaches the queue (`Output`) and which
/// requests may be handed over (`Delivery`), each case carrying the data that exists only in it.
extension ConnectionStateMachine {
    /// How output reaches the connection's queue.
    ///
    /// Output held back exists only while a stream runs: it is released, in order, when the
    /// stream's last chunk is queued, so it cannot be left behind with no stream to follow.
    enum Output: Sendable {
        /// Replies and events are queued as they come.
        case direct
        /// A streamed reply or snapshot is being written; what arrives meanwhile waits behind it.
        case streaming(RunningStream)

        /// The running stream, if any.
        var stream: BookStreamEncoder? {
            if case .streaming(let running) = self { return running.encoder }
            return nil
        }

        /// True in `direct`.
        var isDirect: Bool {
            if case .direct = self { return true }
            return false
        }
    }

    /// A running stream and the output held back behind it.
    struct RunningStream: Sendable {
        /// The reply or snapshot being cut into chunks.
        var encoder: BookStreamEncoder
        /// Output that arrived during the stream, in order.
        var held: [HeldOutput] = []
        /// The broadcast-event bytes in `held` (they count towards the lag limit).
        var heldEventBytes = 0
    }

    /// Output held back while a stream runs.
    enum HeldOutput: Sendable {
        /// Bytes to send; `exempt` when not a broadcast event (does not count towards the lag limit).
        case bytes([UInt8], exempt: Bool)
        /// A stream that arrived while another ran.
        case stream(BookStreamEncoder)
    }

    /// Which decoded requests may be handed to the delegate (see `isExclusive`).
    ///
    /// An exclusive request is either waiting or in flight, never both, and while one is in
    /// either case nothing after it is delivered.
    enum Delivery: Sendable {
        /// Requests are delivered as they are decoded, up to `maxPendingRequests` unanswered.
        case pipelining
        /// This exclusive request was decoded and waits until nothing is unanswered and the
        /// output is at most half of `queueLimit`; the lines after it wait in the backlog.
        case holding(Request)
        /// An exclusive request was delivered and is not answered yet: nothing else is delivered.
        case exclusive

        /// The request waiting in `holding`, if any.
        var held: Request? {
            if case .holding(let request) = self { return request }
            return nil
        }
    }

    /// Complete lines received and not yet processed, consumed from the front.
    struct Backlog: Sendable {
        private var frames: [LineFramer.Frame] = []
        private var head = 0

        /// Lines not yet taken.
        var count: Int { frames.count - head }

        /// True when every line was taken.
        var isEmpty: Bool { head == frames.count }

        /// Appends lines after those waiting.
        mutating func append(_ more: [LineFramer.Frame]) {
            frames.append(contentsOf: more)
        }

        /// Takes the first waiting line, if any.
        mutating func next() -> LineFramer.Frame? {
            guard head < frames.count else { return nil }
            head += 1
            return frames[head - 1]
        }

        /// Frees the storage once every line was taken (keeping a small buffer's capacity).
        mutating func compact() {
            guard isEmpty else { return }
            frames.removeAll(keepingCapacity: frames.count < 1024)
            head = 0
        }

        /// Drops every waiting line.
        mutating func removeAll() {
            frames = []
            head = 0
        }
    }
}
