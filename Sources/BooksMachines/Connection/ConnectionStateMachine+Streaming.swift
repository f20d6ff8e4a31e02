import BooksProtocol

/// Streamed output: a `list` reply or a `snapshot` produced a page at a time (`BookStreamEncoder`)
/// while the connection's queued output is under `pageBudget`.
///
/// While a stream runs, nothing else is written to the connection — events and replies are held
/// back in order (events still count towards the lag limit) and released right after its last
/// chunk — and no request is delivered. So a streamed message is never interleaved with other
/// output, even when it is one line cut into chunks, and a subscriber's snapshot at seq N is
/// followed by the changes after N. A `list` stream counts as the request's reply: the
/// connection's next requests wait until its last chunk is queued.
extension ConnectionStateMachine {
    /// The size of the chunks a stream is cut into: a quarter of the page budget (at least 1 KiB).
    public var pageChunkBytes: Int { max(1024, pageBudget / 4) }

    /// True while a streamed reply or snapshot is being written.
    public var isStreaming: Bool { !stream.isNone }

    /// Starts streaming `books` after the output queued so far (after the running stream and
    /// what is held back behind it, if one runs). No action unless live.
    public mutating func startStream(_ books: BookStreamEncoder) -> [Action] {
        guard state.isLive else { return [] }
        if !stream.isNone {
            heldOutput.append(.stream(books))
            return []
        }
        stream = books
        var actions: [Action] = []
        pump(into: &actions)
        syncReading(into: &actions)
        return actions
    }

    /// Encodes chunks of the running stream while less than `pageBudget` is queued; after the
    /// last one, answers the list request and releases the output held back meanwhile.
    mutating func pump(into actions: inout [Action]) {
        while var current = stream, queuedBytes < pageBudget {
            let chunk = current.nextChunk(targetBytes: pageChunkBytes)
            queuedBytes += chunk.count
            exemptBytes += chunk.count
            actions.append(.send(chunk))
            guard current.isFinished else {
                stream = current
                continue
            }
            stream = nil
            if case .listReply = current.message {
                pendingReplies = max(0, pendingReplies - 1)
                if pendingReplies == 0 { exclusiveInFlight = false }
            }
            releaseHeldOutput(into: &actions)
            if stream.isNone { processBacklog(into: &actions) }
        }
    }

    /// Sends what was held back, in order, up to the next held stream (which then starts; what
    /// follows it stays held).
    private mutating func releaseHeldOutput(into actions: inout [Action]) {
        var released = 0
        for held in heldOutput {
            released += 1
            switch held {
            case .bytes(let bytes, let exempt):
                queuedBytes += bytes.count
                if exempt { exemptBytes += bytes.count } else { heldEventBytes -= bytes.count }
                actions.append(.send(bytes))
            case .stream(let next):
                stream = next
            }
            if !stream.isNone { break }
        }
        heldOutput.removeFirst(released)
        if heldOutput.isEmpty { heldEventBytes = 0 }
        if queuedBytes > queueLimit { outputOverLimit = true }
    }

    /// Holds `bytes` back until the stream ends. An event that would take the broadcast bytes
    /// (queued and held) over `queueLimit` closes the connection as lagged instead; the lag
    /// notice is dropped when the peer is in the middle of a streamed line.
    mutating func holdBack(
        _ bytes: [UInt8], kind: OutputKind, lagNotice: () -> [UInt8]
    ) -> [Action] {
        if kind == .event {
            let pending = queuedBytes - exemptBytes + heldEventBytes
            if pending > 0 && pending + bytes.count > queueLimit {
                var actions: [Action] = []
                let notice = stream?.isMidLine == true ? [] : lagNotice()
                if !notice.isEmpty {
                    queuedBytes += notice.count
                    actions.append(.send(notice))
                }
                return actions + close(.lagged)
            }
            heldEventBytes += bytes.count
        } else if kind == .reply {
            pendingReplies = max(0, pendingReplies - 1)
            if pendingReplies == 0 { exclusiveInFlight = false }
        }
        heldOutput.append(.bytes(bytes, exempt: kind != .event))
        return []
    }

    /// Output held back while a stream runs.
    enum HeldOutput: Sendable {
        /// Bytes to send; `exempt` when not a broadcast event (does not count towards the lag limit).
        case bytes([UInt8], exempt: Bool)
        /// A stream that arrived while another ran.
        case stream(BookStreamEncoder)
    }
}
