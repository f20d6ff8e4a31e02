import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl stores`: every store of the daemon, one per line.
struct StoresCommand: Equatable {
    var json = false

    static func run(json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let connected = try await context.connect()
        defer { connected.close() }
        let stores: [StoreInfo]
        if let direct = connected as? BooksClient {
            stores = try await direct.stores()
        } else if let scoped = connected as? StoreClient {
            stores = try await scoped.client.stores()
        } else if let nats = connected as? NATSBooksClient {
            stores = try await nats.stores()  // each store published under the prefix, asked in turn
        } else {
            throw .protocolError(ProtocolError(.invalidArgument, "stores needs the Unix socket or --nats"))
        }
        if json {
            for store in stores { context.out.line(jsonLine(store)) }
            return .success
        }
        // On a terminal, cut to its width like `list` (the full values: --json).
        let width = context.out.isTerminal ? TableLayout.terminalWidth() : nil
        for line in table(stores, style: context.style, width: width) { context.out.line(line) }
        return .success
    }

    /// The text table: a dimmed header, one row per store (OLDEST and SINCE: the oldest change set
    /// of the history kept and its local time, `-` when none is); cut to `width` columns when given.
    static func table(_ stores: [StoreInfo], style: Style, width: Int?) -> [String] {
        let rows = stores.map { s -> [String] in
            [
                s.name, s.state + (s.problem.map { " (\($0))" } ?? ""), String(s.bookCount), String(s.badLines),
                String(s.seq), s.historyOldestSeq.map(String.init) ?? "-",
                s.historyOldestSeq == nil ? "-" : HistoryPrinter.localTime(s.historyOldestTime), s.format, s.path,
            ].map(TextCell.escape)
        }
        let header = ["STORE", "STATE", "BOOKS", "BAD", "SEQ", "OLDEST", "SINCE", "FORMAT", "PATH"]
        let widths = TableLayout.widths(of: [header] + rows, available: width)
        let lines = TableLayout.lines([header] + rows, widths: widths, available: width)
        return lines.enumerated().map { index, text in index == 0 ? style.dim(text) : text }
    }

    /// `{"name","path","format","state"[,"problem"],"bookCount","badLines","epoch","seq"
    /// [,"historyOldestSeq","historyOldestTime"]}` (the last two when a history is kept).
    static func jsonLine(_ s: StoreInfo) -> String {
        var pairs: [(String, String)] = [
            ("name", JSONLine.string(s.name)), ("path", JSONLine.string(s.path)),
            ("format", JSONLine.string(s.format)), ("state", JSONLine.string(s.state)),
        ]
        if let problem = s.problem { pairs.append(("problem", JSONLine.string(problem))) }
        pairs += [
            ("bookCount", String(s.bookCount)), ("badLines", String(s.badLines)), ("epoch", JSONLine.string(s.epoch)),
            ("seq", String(s.seq)),
        ]
        if let oldest = s.historyOldestSeq { pairs.append(("historyOldestSeq", String(oldest))) }
        if let time = s.historyOldestTime { pairs.append(("historyOldestTime", JSONLine.string(time))) }
        return JSONLine.object(pairs)
    }
}
