import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl update ID [--name N] [--author A] [--expect-version V]`.
enum UpdateCommand {
    static func run(_ options: UpdateOptions, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let patch = BookPatch(
            id: options.id, name: options.name, author: options.author,
            expectedVersion: options.expectVersion)
        let written = try await client.update([patch])
        if let book = written.first {
            context.out.line(
                """
                updated \(TextCell.escape(book.id)): \(TextCell.escape(book.name)) — \
                \(TextCell.escape(book.author))
                """)
        } else {
            context.out.line("updated \(TextCell.escape(options.id))")
        }
        return .success
    }
}
