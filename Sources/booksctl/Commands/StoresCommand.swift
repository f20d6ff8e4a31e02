import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl stores`: every store of the daemon, one per line.
enum StoresCommand {
    static func run(json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let connected = try await context.connect()
        defer { connected.close() }
        let client: BooksClient
        if let direct = connected as? BooksClient {
            client = direct
        } else if let scoped = connected as? StoreClient {
            client = scoped.client
        } else {
            throw .protocolError(ProtocolError(.invalidArgument, "stores needs the Unix socket (not --nats)"))
        }
        let stores = try await client.stores()
        if json {
            for store in stores { context.out.line(jsonLine(store)) }
            return .success
        }
        let rows = stores.map { s -> [String] in
            [
                s.name, s.state + (s.problem.map { " (\($0))" } ?? ""), String(s.bookCount), String(s.badLines),
                String(s.seq), s.format, s.path,
            ].map(TextCell.escape)
        }
        let header = ["STORE", "STATE", "BOOKS", "BAD", "SEQ", "FORMAT", "PATH"]
        let widths = header.indices.map { k in ([header] + rows).map { $0[k].count }.max() ?? 0 }
        for (index, row) in ([header] + rows).enumerated() {
            let text = row.enumerated().map { k, cell in k == row.count - 1 ? cell : cell.padding(widths[k]) }
                .joined(separator: "  ")
            context.out.line(index == 0 ? context.style.dim(text) : text)
        }
        return .success
    }

    /// `{"name","path","format","state"[,"problem"],"bookCount","badLines","epoch","seq"}`.
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
        return JSONLine.object(pairs)
    }
}
