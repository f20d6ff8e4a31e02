import BooksClient
import BooksCore
import BooksPlatform
import BooksProtocol
import FoundationEssentials

/// `booksctl subscribe`: prints changes (or runs `--exec`) until interrupted or `--count` change
/// sets; reconnects and resumes on its own, from `--since` or `--cursor-file` when given.
///
/// One store (`--store NAME` once, or a daemon with a single store): that store's feed, lines as
/// ever. Otherwise (no `--store` and several stores, or `--store` several times): every store
/// (or those named), each line naming its store, one resume point per store
/// (`SubscribeCommand+Stores`).
struct SubscribeCommand: Equatable {
    var options: SubscribeOptions

    static func run(
        _ options: SubscribeOptions, stores: [String], _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let err = context.err
        let oneStore = "--conflicts follows one store: give --store NAME"
        if stores.count > 1 {
            if options.conflicts {
                err.line("booksctl: \(oneStore)")
                return .usage
            }
            return try await runStores(options, stores: stores, context)
        }
        // The store the JSON lines name (when the daemon names its stores).
        var storeName = stores.first
        if stores.isEmpty {
            switch try await served(context) {
            case .several:
                if options.conflicts {
                    err.line("booksctl: \(oneStore)")
                    return .usage
                }
                return try await runStores(options, stores: ["*"], context)
            case .one(let name): storeName = name
            }
        }
        guard
            let since = SubscribeFailure.reported(
                to: err, { () throws(SubscribeFailure) in try SinceOption.start(options) })
        else { return .usage }
        let start = try await resumePoint(since, context)
        var subscription = resilientSubscription(options, context)
        subscription.resumeFrom = start
        if stores.count == 1 { subscription.store = stores[0] }
        let (done, finish) = AsyncStream<Void>.makeStream()
        guard
            let sink = SubscribeFailure.reported(
                to: err,
                { () throws(SubscribeFailure) in
                    try SubscribeSink(options, context, store: storeName, onDone: { finish.finish() })
                })
        else { return .daemonError }
        if options.conflicts { subscription.onConflict = { sink.conflict($0) } }
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
        let failure = await task.value
        if sink.execGaveUp { return .daemonError }
        if let failure { throw failure }
        return .success
    }

    /// Where to start: after `since`'s cursor; after a plain seq of the daemon's current epoch
    /// (asked with a ping); nil: now.
    static func resumePoint(
        _ since: SinceOption?, _ context: CommandContext
    ) async throws(BooksClientError) -> ResumePoint? {
        switch since {
        case nil: return nil
        case .cursor(let cursor): return cursor.resumePoint
        case .time(let date):
            // Before the oldest change set kept at or after the time (the daemon's history).
            let client = try await context.connect()
            defer { client.close() }
            var reply = try await client.history(since: .time(date))
            var oldest = reply.changes.first?.seq
            while reply.more, let first = reply.changes.first, first.seq > 1 {
                reply = try await client.history(since: .time(date), until: .seq(first.seq - 1))
                oldest = reply.changes.first?.seq ?? oldest
            }
            guard let epoch = reply.epoch else {
                throw .protocolError(ProtocolError(.badRequest, "--since: the daemon did not say its epoch"))
            }
            return ResumePoint(epoch: epoch, seq: oldest.map { $0 - 1 } ?? reply.seq)
        case .seq(let seq):
            let client = try await context.connect()
            defer { client.close() }
            guard let point = try await client.ping() else {
                throw .protocolError(ProtocolError(.badRequest, "--since \(seq): the daemon did not say its epoch"))
            }
            return ResumePoint(epoch: point.epoch, seq: seq)
        }
    }
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
    /// `log --follow`: `log`'s lines instead of `subscribe`'s.
    private let log: LogFollowPrinter?

    init(
        _ options: SubscribeOptions, _ context: CommandContext, store: String? = nil,
        onDone: @escaping @Sendable () -> Void
    ) throws(SubscribeFailure) {
        formatter = ChangeLineFormatter(json: options.json, style: context.style)
        self.store = options.json ? store : nil
        log = options.logFormat.map {
            // The store `log --json` names: the one `--store` named.
            LogFollowPrinter(
                format: $0, json: options.json, store: context.store, printer: HistoryPrinter(style: context.style))
        }
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
                do throws(SubscribeFailure) { try cursorFile.save(cursor) } catch { error.print(to: err) }
            }
            let ran = counts.value.withLock {
                $0.ran += sets
                return $0.ran
            }
            if let limit, ran >= limit { onDone() }
        } onGiveUp: {
            counts.value.withLock { $0.gaveUp = true }
            onDone()
        }
    }

    /// Whether `--exec`'s command could not be started and booksctl stops (exit 1, the cursor
    /// before the change set that did not run).
    var execGaveUp: Bool { counts.value.withLock { $0.gaveUp } }

    /// Handles one update (ignored once `--count` change sets were handled; a gap marker is
    /// printed but not counted).
    func handle(_ received: MirrorUpdate) {
        var update = received
        if update.time == nil { update.time = Date() }
        // A gap marker, and an empty --initial snapshot without --exec (it prints nothing), do not count.
        let counted = update.origin != .resyncRequired && (runner != nil || !update.changes.isEmpty)
        let number = counts.value.withLock { counts -> Int? in
            if counts.gaveUp { return nil }
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
                error.print(to: err)
            }
        }
        if counted, let limit, number >= limit { onDone() }
    }

    /// Prints a conflict line (`--conflicts`): recorded, or settled. Not counted by `--count`.
    func conflict(_ notice: ConflictNotice) {
        let c = notice.conflict
        if formatter.json {
            var pairs: [(String, String)] = [("event", JSONLine.string("conflict"))]
            if let side = notice.resolved { pairs.append(("resolved", JSONLine.string(side.rawValue))) }
            out.line(JSONLine.object(pairs + ConflictsCommand.jsonPairs(c, store: store)))
            return
        }
        let book = TextCell.escape(c.conflict.id)
        if let side = notice.resolved {
            out.line(
                "conflict \(c.id) settled at \(notice.seq): book \(book) keeps \(side.rawValue) (\(c.conflict.field))")
            return
        }
        let mine = TextCell.escape(c.conflict.mineValue ?? "deleted")
        let theirs = TextCell.escape(c.conflict.theirsValue ?? "deleted")
        let who = c.who.isEmpty ? "" : " (\(TextCell.escape(c.who)))"
        out.line(
            "conflict \(c.id) at \(notice.seq): book \(book) \(c.conflict.field): \(mine) in the file, \(theirs) kept"
                + "\(who); booksctl resolve \(c.id) --take mine|theirs")
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
        if let log {
            log.forEachLine(for: update, add)
        } else if let store {
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

/// How many change sets `subscribe` handled (printed or queued), how many `--exec` runs covered,
/// and whether `--exec` gave up on a command that could not be started.
final class SubscribeCounts: Sendable {
    let value = Locked((handled: 0, ran: 0, gaveUp: false))
}
