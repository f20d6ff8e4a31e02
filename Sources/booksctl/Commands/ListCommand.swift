import BooksClient
import BooksCore
import BooksPlatform
import BooksProtocol

/// `booksctl list`: prints the daemon's pages as they arrive (see `ListPrinter`).
enum ListCommand {
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
        if let at = options.at {
            // The list as it was: one reply (the daemon rebuilds it from the history kept).
            let past = try await client.books(at: at, options.query)
            out.write(bytes: printer.withLock { $0.page(past.books) })
            out.write(bytes: printer.withLock { $0.finish(total: past.total) })
            return .success
        }
        // Written from the connection's reader thread, page by page (no thread hop, no gathering).
        let page = try await client.list(options.query) { books in
            let bytes = printer.withLock { $0.page(books) }
            out.write(bytes: bytes)
        }
        out.write(bytes: printer.withLock { $0.finish(total: page.total) })
        return .success
    }
}
