import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl get ID…` (full ids or unique prefixes).
struct GetCommand: Equatable {
    /// Each a full id or a unique prefix.
    var ids: [String]
    var json = false

    static func run(
        ids arguments: [String], json: Bool, _ context: CommandContext
    ) async throws(BooksClientError)
        -> ExitCode
    {
        let client = try await context.connect()
        defer { client.close() }
        guard let ids = try await IDResolver.resolve(arguments, client, err: context.err) else { return .usage }
        let found = try await client.get(ids)
        if json {
            let lines = WrittenBooks.jsonLines(found.map(\.book), versions: found.map(\.version))
            for line in lines { context.out.line(line) }
            return .success
        }
        let s = context.style
        let blocks = found.map { found in
            let book = found.book
            return """
                \(s.bold("id:"))      \(TextCell.escape(book.id))
                \(s.bold("name:"))    \(TextCell.escape(book.name))
                \(s.bold("author:"))  \(TextCell.escape(book.author))
                \(s.bold("version:")) \(found.version)

                """
        }
        context.out.write(blocks.joined(separator: "\n"))
        return .success
    }
}
