import BooksClient
import BooksCore
import BooksPlatform
import BooksProtocol

/// `booksctl list`: prints the daemon's pages as they arrive (see `ListPrinter`).
struct ListCommand: Equatable {
    var options: ListOptions

    static func run(_ options: ListOptions, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let format: ListPrinter.Format
        if options.jsonArray {
            format = .jsonArray
        } else if options.json {
            format = .jsonLines
        } else if context.out.isTerminal {
            format = .table(context.style, width: options.full ? nil : TableLayout.terminalWidth())
        } else {
            format = .tabSeparated
        }
        let printer = Locked(ListPrinter(format: format))
        let out = context.out
        let write: @Sendable ([Book]) -> Void = { books in
            let bytes = printer.withLock { $0.page(books) }
            out.write(bytes: bytes)
        }
        if let at = options.at {
            // The list as it was (the daemon rebuilds it from the history kept), page by page
            // over the socket; one reply over NATS.
            let past: BookPage
            switch client {
            case let socket as BooksClient: past = try await socket.books(at: at, options.query, onPage: write)
            case let store as StoreClient: past = try await store.books(at: at, options.query, onPage: write)
            default:
                var whole = try await client.books(at: at, options.query)
                write(whole.books)
                whole.books = []
                past = whole
            }
            out.write(bytes: printer.withLock { $0.finish(total: past.total) })
            return .success
        }
        // Written from the connection's reader thread, page by page (no thread hop, no gathering).
        let page = try await client.list(options.query, onPage: write)
        out.write(bytes: printer.withLock { $0.finish(total: page.total) })
        return .success
    }
}
