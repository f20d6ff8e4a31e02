import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl delete ID [--expect-version V]`.
enum DeleteCommand {
    static func run(
        id: String, expectVersion: UInt64?, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        try await client.delete([id], expectedVersions: expectVersion.map { [$0] })
        context.out.line("deleted \(TextCell.escape(id))")
        return .success
    }
}
