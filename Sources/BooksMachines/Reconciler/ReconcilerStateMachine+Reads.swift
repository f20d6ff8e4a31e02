import BooksCore
import BooksProtocol

/// Read requests, answered from the context as it stands between two inputs (so a read sent
/// after a write's reply sees that write).
extension ReconcilerStateMachine {
    /// The most ids one `get` may name (duplicates count: the line is read before they are removed).
    public static let maxIDsPerRequest = 10_000

    mutating func read(
        _ request: Request, from connection: ReplyTarget,
        _ environment: ReadEnvironment
    ) -> [ReconcilerAction] {
        let context = self.context
        func reply(_ result: ReplyResult) -> [ReconcilerAction] {
            [.reply(.success(request.id, result), to: connection)]
        }
        func fail(_ error: ProtocolError) -> [ReconcilerAction] {
            [.reply(.failure(request.id, error), to: connection)]
        }
        if let problem = request.filter?.violation() { return fail(ProtocolError(.limitExceeded, problem)) }
        switch request.op {
        case .hello:
            return reply(
                ReplyResult(
                    protocolVersion: ProtocolVersion.current, server: configuration.serverName,
                    epoch: context.epoch, seq: context.seq))
        case .ping:
            return reply(ReplyResult(epoch: context.epoch, seq: context.seq))
        case .status:
            return reply(ReplyResult(epoch: context.epoch, seq: context.seq, status: status(environment)))
        case .list, .query:
            if let at = request.at { return listAt(at, request, from: connection, environment) }
            let query = BookQuery(
                filter: request.filter ?? .all, sort: request.sort, limit: request.limit,
                offset: request.offset ?? 0)
            do throws(QueryBudgetExceeded) {
                let stream = BookStreamEncoder(
                    .listReply(id: request.id), epoch: context.epoch, seq: context.seq,
                    cursor: try BookCursor(context: context, query: query, budget: environment.queryBudget),
                    framing: request.paged == true ? .pages : .singleLine)
                return [.stream(stream, to: connection)]
            } catch {
                return fail(ProtocolError(.queryTooExpensive, error.description))
            }
        case .get:
            guard let asked = request.ids, !asked.isEmpty else {
                return fail(ProtocolError(.invalidArgument, "get needs a non-empty \"ids\" array"))
            }
            guard asked.count <= Self.maxIDsPerRequest else {
                return fail(
                    ProtocolError(
                        .limitExceeded, "get may name at most \(Self.maxIDsPerRequest) ids, not \(asked.count)"))
            }
            var seen = Set<String>()
            let ids = asked.filter { seen.insert($0).inserted }  // each book once, in the order first asked
            var books: [Book] = []
            for id in ids {
                guard let book = context.book(id: id) else {
                    return fail(ProtocolError(.notFound, "no book with id \(id)"))
                }
                books.append(book)
            }
            return reply(
                ReplyResult(
                    epoch: context.epoch, seq: context.seq, books: books,
                    versions: ids.map(context.version(of:))))
        case .subscribe:
            let filter = request.filter ?? .all
            let wantsSnapshot = request.snapshot ?? true
            var initial: [Event] = []
            var sendSnapshot = wantsSnapshot
            var resume = request.resume
            if let since = request.since {
                switch resumePoint(since) {
                case .success(let point): resume = point
                case .failure(let error): return fail(error)
                }
            }
            if let resume {
                switch context.replay(fromEpoch: resume.epoch, seq: resume.seq) {
                case .replay(let missed):
                    initial = missed.compactMap { MessageEncoder.changeEvent($0, filter: filter) }
                    sendSnapshot = false
                case .resyncRequired(let reason):
                    initial.append(
                        Event(event: .resyncRequired, epoch: context.epoch, seq: context.seq, reason: reason))
                }
            }
            var snapshot: BookStreamEncoder?
            if sendSnapshot {
                do throws(QueryBudgetExceeded) {
                    snapshot = try self.snapshot(filter, paged: request.paged == true, budget: environment.queryBudget)
                } catch {
                    return fail(ProtocolError(.queryTooExpensive, error.description))
                }
            }
            let ok = Reply.success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq))
            var actions: [ReconcilerAction] = [
                .startSubscription(connection, reply: ok, filter: filter, initialEvents: initial, afterSeq: context.seq)
            ]
            if let snapshot { actions.append(.stream(snapshot, to: connection)) }
            return actions
        case .unsubscribe:
            let ok = Reply.success(request.id, ReplyResult(epoch: context.epoch, seq: context.seq))
            return [.stopSubscription(connection, reply: ok)]
        case .stores:
            // A daemon without named stores (this engine as the server's delegate) has one.
            return reply(ReplyResult(stores: [storeInfo(name: request.store ?? "default")]))
        case .conflicts:
            return reply(ReplyResult(epoch: context.epoch, seq: context.seq, conflicts: conflicts))
        case .log, .show, .blame:
            return historyRead(request, from: connection)
        case .insert, .update, .delete, .save, .resolve, .undo:
            return []  // writes arrive as `writesReceived`, `resolve` as `resolveConflict`, `undo` as `undo`
        }
    }

    /// The `snapshot` event of the books `filter` matches, to be streamed (filtered now).
    /// - Throws: ``QueryBudgetExceeded`` when filtering takes longer than `budget`.
    func snapshot(
        _ filter: BookFilter, paged: Bool, budget: QueryBudget
    ) throws(QueryBudgetExceeded)
        -> BookStreamEncoder
    {
        BookStreamEncoder(
            .snapshot, epoch: context.epoch, seq: context.seq,
            cursor: try BookCursor(context: context, filter: filter, budget: budget),
            framing: paged ? .pages : .singleLine)
    }

    /// The `status` object.
    func status(_ environment: ReadEnvironment) -> DaemonStatus {
        let stats = environment.statistics
        var watcherWarning = environment.watcherWarning
        if watcherWarning == nil, case .polling = environment.watcher {
            watcherWarning = environment.watcher?.description
        }
        var status = DaemonStatus(
            file: configuration.path, format: configuration.format.rawValue, fileState: fileState.word,
            fileProblem: fileState.problem, bookCount: context.bookCount,
            badLines: Array(context.document.badLines.prefix(1000)), heldBooks: context.held.keys.sorted(),
            watcherMode: environment.watcher?.word ?? "none", watcherWarning: watcherWarning, epoch: context.epoch,
            seq: context.seq, oldestReplayableSeq: context.seq - UInt64(min(context.log.count, Int(context.seq))),
            subscribers: stats.subscribers, clients: stats.clients, uptimeSeconds: environment.uptimeSeconds,
            lastChange: context.lastChange.map(ISO8601.format), server: configuration.serverName)
        status.conflicts = conflicts.isEmpty ? nil : conflicts
        status.reverts = recentReverts.isEmpty ? nil : recentReverts
        if context.log.count > 0 {
            status.historyOldestSeq = context.log[0].seq
            status.historyOldestTime = ISO8601.format(context.log[0].time)
            status.historyBytes = context.log.bytes
        }
        status.replica = environment.replica
        return status
    }

    /// The one-line summary systemd shows (`STATUS=`), given the subscriber count.
    public func statusLine(subscribers: Int) -> String {
        let last =
            context.lastChange.map { "last change seq \(context.seq) at \(ISO8601.format($0))" } ?? "no change yet"
        return
            """
            \(context.bookCount) books, \(context.document.badLineCount) bad lines, \(subscribers) subscribers, \
            \(last)
            """
    }
}
