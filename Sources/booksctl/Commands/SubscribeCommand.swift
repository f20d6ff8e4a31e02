import BooksClient
import BooksCore
import BooksProtocol
import FoundationEssentials
import Synchronization

/// `booksctl subscribe`: prints changes (or runs `--exec`) until interrupted or `--count` change
/// sets; reconnects and resumes on its own, from `--since` or `--cursor-file` when given.
///
/// One store (`--store NAME` once, or a daemon with a single store): that store's feed, lines as
/// ever. Otherwise (no `--store` and several stores, or `--store` several times): every store
/// (or those named), each line naming its store, one resume point per store
/// (`SubscribeCommand+Stores`).
enum SubscribeCommand {
    static func run(
        _ options: SubscribeOptions, stores: [String], _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let err = context.err
        if stores.count > 1 {
            return try await runStores(options, stores: stores, context)
        }
        // The store the JSON lines name (when the daemon names its stores).
        var storeName = stores.first
        if stores.isEmpty {
            switch try await served(context) {
            case .several: return try await runStores(options, stores: ["*"], context)
            case .one(let name): storeName = name
            }
        }
        let given: SubscribeStart?
        do throws(SubscribeFailure) {
            given = try startCursor(options)
        } catch {
            err.line("booksctl: \(TextCell.escapeLines(error.description))")
            return .usage
        }
        var storeContext = context
        if stores.count == 1 { storeContext.store = stores[0] }
        let start = try await resolve(given, storeContext)
        let notices = Mutex(ReconnectNotices(mirror: options.mirror || options.initial))
        var subscription = ResilientSubscription(
            socketPath: context.socketPath, filter: options.filter, initial: options.initial,
            mirror: options.mirror,
            onStatus: { status in
                if let line = notices.withLock({ $0.notice(for: status) }) { err.line("booksctl: \(line)") }
            })
        subscription.resumeFrom = start?.resumePoint
        if stores.count == 1 { subscription.store = stores[0] }
        let (done, finish) = AsyncStream<Void>.makeStream()
        let sink: SubscribeSink
        do throws(SubscribeFailure) {
            sink = try SubscribeSink(options, context, store: storeName, onDone: { finish.finish() })
        } catch {
            err.line("booksctl: \(TextCell.escape(error.description))")
            return .daemonError
        }
        let task = Task { () -> BooksClientError? in
            defer { finish.finish() }
            do throws(BooksClientError) {
                try await subscription.forEachUpdate { sink.handle($0) }
                return nil
            } catch {
                return error
            }
        }
        for await _ in done {}
        task.cancel()
        if let error = await task.value { throw error }
        return .success
    }

    /// Where to start: `--since` (a cursor `EPOCH:SEQ`, or a seq of the current epoch), else the
    /// cursor file's cursor, else nil (now). A time (`-10m`, `today`, ISO 8601) is refused for
    /// now: the daemon does not yet resolve times to seqs on the socket.
    static func startCursor(
        _ options: SubscribeOptions, now: Date = Date(), zone: HistoryTimeZone = .system
    ) throws(SubscribeFailure) -> SubscribeStart? {
        if (options.since != nil || options.cursorFile != nil) && (options.mirror || options.initial) {
            throw SubscribeFailure(
                description: "--since and --cursor-file cannot be combined with --mirror or --initial")
        }
        if let since = options.since {
            let point: HistoryPoint
            do throws(HistoryPointError) {
                point = try HistoryPoint.parse(since, now: now, zone: zone)
            } catch {
                throw SubscribeFailure(
                    description: """
                        --since '\(error.text)' is not a WHEN: \(error.reason)
                        hint: EPOCH is the daemon's, a UUID (booksctl status shows it and the seq), e.g. --since \
                        5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90:17; WHEN is \(HistoryPoint.forms)
                        """)
            }
            switch point {
            case .cursor(let epoch, let seq): return .cursor(Cursor(epoch: epoch, seq: seq))
            case .seq(let seq): return .seq(seq)
            case .time:
                throw SubscribeFailure(
                    description: """
                        --since '\(since)': over the socket --since takes a seq or EPOCH:SEQ for now, not a time
                        hint: booksctl status shows the current seq; with --nats, --since takes times too
                        """)
            }
        }
        return try options.cursorFile.map { path throws(SubscribeFailure) in try CursorFile(path: path).load() }
            .flatMap { $0 }.map(SubscribeStart.cursor)
    }

    /// The cursor `start` names: a plain seq is of the epoch the daemon (the store) is in now.
    static func resolve(
        _ start: SubscribeStart?, _ context: CommandContext
    ) async throws(BooksClientError) -> Cursor? {
        switch start {
        case nil: return nil
        case .cursor(let cursor): return cursor
        case .seq(let seq):
            let client = try await context.connect()
            defer { client.close() }
            guard let point = try await client.ping() else {
                throw .protocolError(ProtocolError(.invalidArgument, "the daemon did not say its epoch"))
            }
            return Cursor(epoch: point.epoch, seq: seq)
        }
    }
}

/// Where `--since` or `--cursor-file` starts the feed.
enum SubscribeStart: Sendable, Equatable {
    /// After this change set.
    case cursor(Cursor)
    /// After this seq of the daemon's current epoch (resolved by a ping before subscribing).
    case seq(UInt64)
}

/// What `subscribe` does with each update, on the connection's reader thread: prints it (or
/// queues it for `--exec`), saves the cursor, counts change sets for `--count`.
final class SubscribeSink: Sendable {
    private let formatter: ChangeLineFormatter
    private let json: ChangeLineFormatter
    private let out: OutputWriter
    private let err: OutputWriter
    private let cursorFile: CursorFile?
    private let limit: Int?
    private let runner: ExecRunner?
    /// Change sets handled (printed or queued), and change sets whose command finished.
    private let counts: SubscribeCounts
    private let onDone: @Sendable () -> Void
    /// With `--json` and a daemon that names its stores: the store each line names (`"store"`).
    private let store: String?

    init(
        _ options: SubscribeOptions, _ context: CommandContext, store: String? = nil,
        onDone: @escaping @Sendable () -> Void
    ) throws(SubscribeFailure) {
        formatter = ChangeLineFormatter(json: options.json, style: context.style)
        self.store = options.json ? store : nil
        json = ChangeLineFormatter(json: true, style: Style(enabled: false))
        out = context.out
        err = context.err
        let cursorFile = options.cursorFile.map(CursorFile.init)
        self.cursorFile = cursorFile
        limit = options.count
        self.onDone = onDone
        guard let argv = options.exec else {
            counts = SubscribeCounts()
            runner = nil
            return
        }
        let counts = SubscribeCounts()
        self.counts = counts
        let limit = options.count
        let err = context.err
        runner = try ExecRunner(argv: argv, coalesceMilliseconds: options.coalesce, err: context.err) { sets, cursor in
            if let cursorFile {
                do throws(SubscribeFailure) { try cursorFile.save(cursor) } catch {
                    err.line("booksctl: \(TextCell.escape(error.description))")
                }
            }
            let ran = counts.value.withLock {
                $0.ran += sets
                return $0.ran
            }
            if let limit, ran >= limit { onDone() }
        }
    }

    /// Handles one update (ignored once `--count` change sets were handled; a gap marker is
    /// printed but not counted).
    func handle(_ received: MirrorUpdate) {
        var update = received
        if update.time == nil { update.time = Date() }
        // A gap marker, and an empty --initial snapshot without --exec (it prints nothing), do not count.
        let counted = update.origin != .resyncRequired && (runner != nil || !update.changes.isEmpty)
        let number = counts.value.withLock { counts -> Int? in
            if let limit, counts.handled >= limit { return nil }
            if counted { counts.handled += 1 }
            return counts.handled
        }
        guard let number else { return }
        if let runner {
            runner.enqueue(ChangeSetPayload(update, formatter: json))
            return
        }
        print(update)
        if let cursorFile {
            do throws(SubscribeFailure) {
                try cursorFile.save(Cursor(epoch: update.epoch, seq: update.seq, time: update.time.map(ISO8601.format)))
            } catch {
                err.line("booksctl: \(TextCell.escape(error.description))")
            }
        }
        if counted, let limit, number >= limit { onDone() }
    }

    /// Writes the update's lines in writes of up to 64 KiB, the last as soon as they are formatted.
    private func print(_ update: MirrorUpdate) {
        var buffer = ""
        let add = { (line: String) in
            buffer += line
            buffer += "\n"
            if buffer.utf8.count >= 1 << 16 {
                self.out.write(buffer)
                buffer = ""
            }
        }
        if let store {
            formatter.forEachLine(for: update, store: store, add)
        } else {
            formatter.forEachLine(for: update, add)
        }
        if !buffer.isEmpty { out.write(buffer) }
    }
}

extension Duration {
    /// `250 ms`.
    var formattedMilliseconds: String {
        "\(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) ms"
    }
}

/// How many change sets `subscribe` handled (printed or queued) and how many `--exec` runs covered.
final class SubscribeCounts: Sendable {
    let value = Mutex((handled: 0, ran: 0))
}
