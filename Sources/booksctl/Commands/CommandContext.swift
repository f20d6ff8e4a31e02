import BooksClient
import BooksCore
import BooksProtocol

/// What every command needs: where the daemon is and where to print.
struct CommandContext: Sendable {
    var socketPath: String
    var out = OutputWriter.standardOutput
    var err = OutputWriter.standardError
    var style = Style.forStandardOutput()

    /// Connects and says hello.
    func connect() async throws(BooksClientError) -> BooksClient {
        try await BooksClient.connect(socketPath: socketPath, clientName: "booksctl")
    }
}
