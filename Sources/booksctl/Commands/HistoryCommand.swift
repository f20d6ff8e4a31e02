import BooksClient
import BooksCore
import BooksProtocol
import FoundationEssentials

/// `booksctl log`, `show`, `blame` and `undo`: the history the daemon keeps.
enum HistoryCommand {
    /// `log`; with `--follow`, then the change sets after the last one printed, live, in the same
    /// format, through `subscribe` (the transport's feed: the socket's or NATS's).
    static func log(
        _ options: LogOptions, _ context: CommandContext,
        subscribe: (SubscribeOptions) async throws(BooksClientError) -> ExitCode
    ) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        var pages: [[Event]] = []
        var collected = 0
        var until = options.until
        var reply: HistoryReply
        var head: ResumePoint?
        repeat {
            let wanted = options.count.map { $0 - collected }
            reply = try await client.history(
                since: options.since, until: until, ids: options.id.map { [$0] }, filter: options.filter,
                limit: wanted)
            pages.append(reply.changes)
            // The position of the newest page: --follow resumes after it (a later page's may be
            // past change sets that came in meanwhile, which no page then holds).
            if head == nil { head = reply.epoch.map { ResumePoint(epoch: $0, seq: reply.seq) } }
            collected += reply.changes.count
            guard let first = reply.changes.first, first.seq > 1 else { break }
            until = .seq(first.seq - 1)
        } while reply.more && options.count.map({ collected < $0 }) ?? true
        let printer = HistoryPrinter(style: context.style)
        for page in pages.reversed() {
            for change in page {
                if options.json {
                    context.out.line(printer.json(change, store: context.store))
                } else {
                    context.out.line(printer.line(change))
                    if options.patch { for line in printer.patch(change) { context.out.line(line) } }
                }
            }
        }
        guard options.follow, let head else { return .success }
        // Unfiltered: `log` picks whole change sets (a book before or after matching), the feed's
        // filter would cut them down to the matching books.
        var follow = SubscribeOptions(json: options.json)
        follow.since = "\(head.epoch):\(head.seq)"
        follow.logFormat = LogLineFormat(
            patch: options.patch,
            selection: HistorySelection(ids: options.id.map { [$0] }, filter: options.filter))
        return try await subscribe(follow)
    }

    static func show(_ seq: UInt64, json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        guard let change = try await client.changeSet(seq) else { return .notFound }
        let printer = HistoryPrinter(style: context.style)
        if json {
            context.out.line(printer.json(change, store: context.store))
            return .success
        }
        context.out.line(printer.line(change))
        for line in printer.patch(change) { context.out.line(line) }
        return .success
    }

    static func blame(
        _ ids: [String], json: Bool, _ context: CommandContext
    ) async throws(BooksClientError)
        -> ExitCode
    {
        let client = try await context.connect()
        defer { client.close() }
        let entries = try await client.blame(ids)
        let printer = HistoryPrinter(style: context.style)
        for entry in entries { context.out.line(json ? printer.json(entry) : printer.line(entry)) }
        return .success
    }

    static func undo(
        _ seqs: [UInt64], force: Bool, json: Bool, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let undone = try await client.undo(seqs, force: force)
        let list = seqs.map(String.init).joined(separator: ", ")
        if json {
            let refused = undone.refused.map {
                JSONLine.object([("id", JSONLine.string($0.id)), ("message", JSONLine.string($0.message))])
            }
            context.out.line(
                JSONLine.object([
                    ("undone", "[" + seqs.map(String.init).joined(separator: ",") + "]"), ("seq", String(undone.seq)),
                    ("written", "[" + undone.written.map { JSONLine.string($0.id) }.joined(separator: ",") + "]"),
                    ("refused", "[" + refused.joined(separator: ",") + "]"),
                ]))
        } else {
            context.out.line("undid \(list): the store is at seq \(undone.seq)")
        }
        for refusal in undone.refused {
            context.err.line("booksctl: left alone: \(TextCell.escape(refusal.message))")
        }
        return .success
    }
}
