import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl get ID`.
enum GetCommand {
    static func run(id: String, json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        guard let found = try await client.get([id]).first else {
            throw .daemon(ProtocolError(.notFound, "no book with id \(id)"))
        }
        let book = found.book
        if json {
            context.out.line(
                JSONLine.object([
                    ("id", JSONLine.string(book.id)), ("name", JSONLine.string(book.name)),
                    ("author", JSONLine.string(book.author)), ("version", String(found.version)),
                ]))
        } else {
            let s = context.style
            context.out.write(
                """
                \(s.bold("id:"))      \(TextCell.escape(book.id))
                \(s.bold("name:"))    \(TextCell.escape(book.name))
                \(s.bold("author:"))  \(TextCell.escape(book.author))
                \(s.bold("version:")) \(found.version)

                """)
        }
        return .success
    }
}
