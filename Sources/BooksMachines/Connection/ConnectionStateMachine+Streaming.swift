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
    public var isStreaming: Bool { !output.isDirect }

    /// Starts streaming `books` after the output queued so far (after the running stream and
    /// what is held back behind it, if one runs). No action unless live.
    public mutating func startStream(_ books: BookStreamEncoder) -> [Action] {
        guard state.isLive else { return [] }
        if case .streaming(var running) = output {
            output = .direct  // `running` is the only copy now: appending does not copy what is held
            running.held.append(.stream(books))
            output = .streaming(running)
            return []
        }
        output = .streaming(RunningStream(encoder: books))
        var actions: [Action] = []
        pump(into: &actions)
        syncReading(into: &actions)
        return actions
    }

    /// Encodes chunks of the running stream while less than `pageBudget` is queued; after the
    /// last one, answers the list request and releases the output held back meanwhile.
    mutating func pump(into actions: inout [Action]) {
        while case .streaming(var running) = output, queuedBytes < pageBudget {
            output = .direct  // `running` is the only copy while its encoder advances
            let chunk = running.encoder.nextChunk(targetBytes: pageChunkBytes)
            queuedBytes += chunk.count
            exemptBytes += chunk.count
            actions.append(.send(chunk))
            guard running.encoder.isFinished else {
                output = .streaming(running)
                continue
            }
            if case .listReply = running.encoder.message { answered() }
            release(running.held, eventBytes: running.heldEventBytes, into: &actions)
            if output.isDirect { processBacklog(into: &actions) }
        }
    }

    /// Sends what was held back (`eventBytes` of it broadcast events), in order, up to the next
    /// held stream, which then runs with what follows it held behind it.
    private mutating func release(_ held: [HeldOutput], eventBytes: Int, into actions: inout [Action]) {
        var eventBytes = eventBytes
        for (index, item) in held.enumerated() {
            switch item {
            case .bytes(let bytes, let exempt):
                queuedBytes += bytes.count
                if exempt { exemptBytes += bytes.count } else { eventBytes -= bytes.count }
                actions.append(.send(bytes))
            case .stream(let next):
                output = .streaming(
                    RunningStream(encoder: next, held: Array(held[(index + 1)...]), heldEventBytes: eventBytes))
            }
            if !output.isDirect { break }
        }
        if queuedBytes > queueLimit { outputOverLimit = true }
    }

    /// Holds `bytes` back behind the running stream until it ends. An event that would take
    /// the broadcast bytes (queued and held) over `queueLimit` closes the connection as lagged
    /// instead; the lag notice is dropped when the peer is in the middle of a streamed line.
    /// No action when no stream runs.
    mutating func holdBack(_ bytes: [UInt8], kind: OutputKind, lagNotice: () -> [UInt8]) -> [Action] {
        guard case .streaming(var running) = output else { return [] }
        output = .direct  // `running` is the only copy now: appending does not copy what is held
        if kind == .event {
            let pending = queuedBytes - exemptBytes + running.heldEventBytes
            if pending > 0 && pending + bytes.count > queueLimit {
                var actions: [Action] = []
                let notice = running.encoder.isMidLine ? [] : lagNotice()
                if !notice.isEmpty {
                    queuedBytes += notice.count
                    actions.append(.send(notice))
                }
                return actions + close(.lagged)
            }
            running.heldEventBytes += bytes.count
        } else if kind == .reply || kind == .failure {
            answered()  // a refusal answers its request as a reply does
        }
        running.held.append(.bytes(bytes, exempt: kind != .event))
        output = .streaming(running)
        return []
    }
}
