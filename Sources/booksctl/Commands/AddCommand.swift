import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl add NAME AUTHOR`: prints the new id only.
enum AddCommand {
    static func run(name: String, author: String, _ context: CommandContext) async throws(BooksClientError) -> ExitCode
    {
        let client = try await context.connect()
        defer { client.close() }
        let written = try await client.insert([BookDraft(name: name, author: author)])
        guard let book = written.first else {
            throw .protocolError(ProtocolError(.internalError, "insert reply lacks the new book"))
        }
        context.out.line(TextCell.escape(book.id))
        return .success
    }
}
