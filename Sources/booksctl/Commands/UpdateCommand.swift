import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl update ID [--name N] [--author A] [--expect-version V] [--json]` (ID in full or a
/// unique prefix).
struct UpdateCommand: Equatable {
    var options: UpdateOptions

    static func run(_ options: UpdateOptions, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        guard let id = try await IDResolver.resolve([options.id], client, err: context.err)?.first else {
            return .usage
        }
        let patch = BookPatch(
            id: id, name: options.name, author: options.author, expectedVersion: options.expectVersion)
        let (books, versions) = WrittenBooks.of(try await client.call(.update) { $0.patches = [patch] })
        if options.json {
            for line in WrittenBooks.jsonLines(books, versions: versions) { context.out.line(line) }
        } else if let book = books.first {
            context.out.line(
                """
                updated \(TextCell.escape(book.id)): \(TextCell.escape(book.name)) — \
                \(TextCell.escape(book.author))
                """)
        } else {
            context.out.line("updated \(TextCell.escape(id))")
        }
        return .success
    }
}
