import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import FoundationEssentials

/// The commands over NATS (`--nats`): requests through `NATSBooksClient`, `subscribe` through
/// `NATSFeed`; the same output as over the socket.
enum NATSCommands {
    static func run(_ command: Command, _ target: NATSTarget) async -> ExitCode {
        var context = CommandContext(socketPath: "")
        let connect: @Sendable () throws(BooksClientError) -> any BookRequests = {
            try NATSBooksClient(options: target.options, prefix: target.prefix, store: target.store)
        }
        context.requester = connect
        let prepared = context
        return await Booksctl.dispatch(command, prepared) { options throws(BooksClientError) in
            try await subscribe(options, target, prepared)
        }
    }

    /// Prints every change set of the stream from `--since` (default: new ones only) as `subscribe`
    /// lines; a snapshot marker is announced on stderr.
    static func subscribe(
        _ options: SubscribeOptions, _ target: NATSTarget, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        guard options.exec == nil, options.count == nil, options.cursorFile == nil else {
            throw .protocolError(
                ProtocolError(.invalidArgument, "--exec, --count, --once and --cursor-file need the socket, not --nats")
            )
        }
        let start = try startPoint(options.since)
        let feed = try NATSFeed(options: target.options, prefix: target.prefix, store: target.store)
        let formatter = ChangeLineFormatter(json: options.json, style: context.style)
        let (out, err, filter) = (context.out, context.err, options.filter)
        await NATSBooksClient.onThread {
            feed.run(from: start, onNotice: { err.line("booksctl: \(TextCell.escape($0))") }) { item in
                let event = item.event
                if event.event == .snapshot {
                    err.line(
                        """
                        booksctl: snapshot marker at seq \(event.seq) (booksd restarted or the stream fell behind): \
                        the current books are in the key-value bucket \(target.prefix)_\(target.store)
                        """)
                    return true
                }
                let changes = ChangeSet(
                    inserted: event.inserted ?? [], updated: event.updated ?? [], deleted: event.deleted ?? []
                ).filtered(by: filter)
                guard !changes.isEmpty else { return true }
                let update = MirrorUpdate(
                    epoch: event.epoch, seq: event.seq, source: event.source,
                    time: event.time.flatMap(ISO8601.parse) ?? Date(), origin: .live,
                    changes: changes, actor: event.actor)
                for line in formatter.lines(for: update) { out.line(line) }
                return true
            }
        }
        return .success
    }

    /// `--since`: a stream sequence or a WHEN time (``HistoryPoint``: `-10m`, `today`, an ISO 8601
    /// time, …; relative to `now`, local times in `zone`); none: only new messages.
    static func startPoint(
        _ since: String?, now: Date = Date(), zone: HistoryTimeZone = .system
    ) throws(BooksClientError) -> NATSDeliveryStart {
        guard let since else { return .new }
        let point: HistoryPoint
        do throws(HistoryPointError) {
            point = try HistoryPoint.parse(since, now: now, zone: zone)
        } catch {
            throw .protocolError(ProtocolError(.invalidArgument, "--since \(error.description)"))
        }
        switch point {
        case .seq(let sequence): return sequence == 0 ? .all : .sequence(sequence)
        case .time(let date): return .time(Int64(date.timeIntervalSince1970 * 1_000_000_000))
        case .cursor:
            throw .protocolError(
                ProtocolError(.invalidArgument, "--since with --nats takes a stream sequence or a time, not EPOCH:SEQ"))
        }
    }
}
