import BooksCore
import BooksProtocol
import FoundationEssentials

/// The history kept (the context's change log, saved with the durable history): `log`, `show`,
/// `blame`, `list` at an earlier point and `subscribe` from a time. All answered from the change
/// log in O(change sets scanned), never by reading the state directory.
extension ReconcilerStateMachine {
    /// The most change sets one `log` reply carries (`limit` above it is lowered to it).
    public static let maxHistoryPerReply = 1000

    mutating func historyRead(_ request: Request, from connection: ReplyTarget) -> [ReconcilerAction] {
        let context = self.context
        let log = context.log
        let oldest = log.oldestSeq ?? 0
        func reply(_ result: ReplyResult) -> [ReconcilerAction] {
            var result = result
            result.epoch = context.epoch
            result.seq = context.seq
            result.oldestSeq = oldest
            return [.reply(.success(request.id, result), to: connection)]
        }
        func fail(_ error: ProtocolError) -> [ReconcilerAction] {
            [.reply(.failure(request.id, error), to: connection)]
        }
        switch request.op {
        case .show:
            guard let seqs = request.seqs, seqs.count == 1, let seq = seqs.first else {
                return fail(ProtocolError(.invalidArgument, "show needs \"seqs\" with one seq"))
            }
            guard let change = log.change(seq: seq) else {
                return fail(ProtocolError(.notFound, Self.notKept(seq, context: context)))
            }
            return reply(ReplyResult(history: [Self.event(change)]))
        case .blame:
            let ids = request.ids ?? []
            guard ids.count <= Self.maxIDsPerRequest else {
                return fail(
                    ProtocolError(
                        .limitExceeded, "blame may name at most \(Self.maxIDsPerRequest) ids, not \(ids.count)"))
            }
            return reply(ReplyResult(blame: blame(ids)))
        default:
            var selection = HistorySelection(
                ids: request.ids.map(Set.init), filter: request.filter ?? .all,
                limit: min(max(request.limit ?? Self.maxHistoryPerReply, 1), Self.maxHistoryPerReply))
            for (bound, isSince) in [(request.since, true), (request.until, false)] {
                guard let bound else { continue }
                switch bound.resolved(epoch: context.epoch) {
                case .failure(let error): return fail(error)
                case .success(.seq(let seq)):
                    if isSince { selection.afterSeq = seq } else { selection.untilSeq = seq }
                case .success(.time(let date)):
                    if isSince { selection.sinceTime = date } else { selection.untilTime = date }
                }
            }
            let page = log.select(selection)
            return reply(ReplyResult(more: page.more, history: page.changes.map(Self.event)))
        }
    }

    /// The change set as the feed's `change` event (all its books).
    static func event(_ change: SequencedChangeSet) -> Event {
        // Unfiltered, a change set always has books: the event exists.
        MessageEncoder.changeEvent(change)
            ?? Event(event: .change, epoch: change.epoch, seq: change.seq, source: change.source)
    }

    /// Why `seq` cannot be shown.
    static func notKept(_ seq: UInt64, context: BookLedger) -> String {
        if seq > context.seq || seq == 0 { return "there is no change set \(seq) (the store is at seq \(context.seq))" }
        let oldest = context.log.oldestSeq.map { "seq \($0)" } ?? "none"
        return "change set \(seq) is no longer in the history kept (the oldest kept is \(oldest))"
    }

    /// Each book's last change: of `ids`, or (none named) of every book a kept change set touched,
    /// newest first, at most `maxIDsPerRequest`.
    func blame(_ ids: [String]) -> [BlameEntry] {
        let log = context.log
        var wanted = ids
        if wanted.isEmpty {
            var seen = Set<String>()
            var index = log.count - 1
            while index >= 0, wanted.count < Self.maxIDsPerRequest {
                let changes = log[index].changes
                index -= 1
                let touched = changes.inserted.map(\.id) + changes.updated.map(\.new.id) + changes.deleted.map(\.id)
                for id in touched where seen.insert(id).inserted { wanted.append(id) }
            }
        }
        return wanted.map { id in
            let book = context.book(id: id)
            guard let change = log.lastChange(of: id) else {
                return BlameEntry(id: id, book: book, seq: book == nil ? 0 : context.version(of: id))
            }
            let ids: Set = [id]
            let what =
                change.changes.inserted.contains { ids.contains($0.id) }
                ? "inserted" : change.changes.deleted.contains { ids.contains($0.id) } ? "deleted" : "updated"
            return BlameEntry(
                id: id, book: book, seq: change.seq, time: ISO8601.format(change.time), source: change.source,
                actor: change.actor, change: what)
        }
    }

    /// Where `subscribe` with `since` resumes: after `seq`, or before the first change set applied
    /// at or after the time (none: after the current seq).
    func resumePoint(_ since: HistoryBound) -> Result<ResumePoint, ProtocolError> {
        switch since.resolved(epoch: since.epoch ?? context.epoch) {
        case .failure(let error): return .failure(error)
        case .success(.seq(let seq)): return .success(ResumePoint(epoch: since.epoch ?? context.epoch, seq: seq))
        case .success(.time(let date)):
            // Before the first change set at or after the time; none: from now on.
            let first = context.log.firstSeq(atOrAfter: date)
            return .success(ResumePoint(epoch: context.epoch, seq: first.map { $0 - 1 } ?? context.seq))
        }
    }

    /// A seq for `at`: the seq itself, or the last change set applied at or before the time.
    func seq(at bound: HistoryBound) -> Result<UInt64, ProtocolError> {
        switch bound.resolved(epoch: context.epoch) {
        case .failure(let error): return .failure(error)
        case .success(.seq(let seq)): return .success(seq)
        case .success(.time(let date)):
            let log = context.log
            if date >= (context.lastChange ?? .distantPast) { return .success(context.seq) }
            guard let first = log.firstSeq(atOrAfter: date.addingTimeInterval(0.0005)) else {
                return .success(context.seq)
            }
            if first == log.oldestSeq, first > 1 {
                let oldestTime = log[0].time
                return .failure(
                    ProtocolError(
                        .notFound,
                        """
                        \(ISO8601.format(date)) is older than the history kept (it starts at seq \(first), \
                        \(ISO8601.format(oldestTime)))
                        """))
            }
            return .success(first - 1)
        }
    }

    /// `list`/`query` with `at`: the books as they were, streamed like a list (filter, sort, paging).
    func listAt(
        _ at: HistoryBound, _ request: Request, from connection: ReplyTarget, _ environment: ReadEnvironment
    ) -> [ReconcilerAction] {
        func fail(_ error: ProtocolError) -> [ReconcilerAction] {
            [.reply(.failure(request.id, error), to: connection)]
        }
        let seq: UInt64
        switch self.seq(at: at) {
        case .failure(let error): return fail(error)
        case .success(let value): seq = value
        }
        let books: [Book]
        do throws(ChangeLog.AsOfFailure) {
            books = try context.log.books(at: seq, current: context.books, currentSeq: context.seq)
        } catch {
            return fail(ProtocolError(.notFound, error.description))
        }
        let query = BookQuery(
            filter: request.filter ?? .all, sort: request.sort, limit: request.limit, offset: request.offset ?? 0)
        do throws(QueryBudgetExceeded) {
            let stream = BookStreamEncoder(
                .listReply(id: request.id), epoch: context.epoch, seq: seq,
                cursor: try BookCursor(books: books, query: query, budget: environment.queryBudget),
                framing: request.paged == true ? .pages : .singleLine)
            return [.stream(stream, to: connection)]
        } catch {
            return fail(ProtocolError(.queryTooExpensive, error.description))
        }
    }
}
