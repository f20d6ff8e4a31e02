import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl list`.
enum ListCommand {
    static func run(_ options: ListOptions, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let page = try await client.list(options.query)
        if options.json {
            context.out.line(BookTable.json(page.books))
        } else if context.out.isTerminal {
            var lines = BookTable.aligned(page.books, style: context.style)
            lines.append(context.style.dim("\(page.books.count) of \(page.total) book\(page.total == 1 ? "" : "s")"))
            context.out.write(lines.joined(separator: "\n") + "\n")
        } else if !page.books.isEmpty {
            context.out.write(BookTable.tabSeparated(page.books).joined(separator: "\n") + "\n")
        }
        return .success
    }
}
