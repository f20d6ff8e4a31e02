import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl delete ID… [--expect-version V] [--json]`: one atomic delete of every book named.
struct DeleteCommand: Equatable {
    /// Each a full id or a unique prefix.
    var ids: [String]
    var expectVersion: UInt64?
    var json = false

    static func run(
        ids arguments: [String], expectVersion: UInt64?, json: Bool, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        guard let ids = try await IDResolver.resolve(arguments, client, err: context.err) else { return .usage }
        let deleted = try await client.delete(ids, expectedVersions: expectVersion.map { [$0] })
        if json {
            for line in WrittenBooks.jsonLines(deleted, versions: nil) { context.out.line(line) }
        } else {
            context.out.write(ids.map { "deleted \(TextCell.escape($0))\n" }.joined())
        }
        return .success
    }
}
