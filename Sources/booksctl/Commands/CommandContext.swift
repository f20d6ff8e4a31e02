import BooksClient
import BooksCore
import BooksProtocol

/// What every command needs: where the daemon is and where to print.
struct CommandContext: Sendable {
    var socketPath: String
    var out = OutputWriter.standardOutput
    var err = OutputWriter.standardError
    var style = Style.forStandardOutput()
    /// Another transport's client (NATS); nil: the Unix socket.
    var requester: (@Sendable () throws(BooksClientError) -> any BookRequests)?
    /// `--store NAME` (or `BOOKS_STORE`): the store every request names; nil: the daemon's only
    /// store (a daemon with several answers `store-required`, a usage error).
    var store: String?

    /// Connects (the socket: and says hello); requests name `store` when one is given.
    func connect() async throws(BooksClientError) -> any BookRequests {
        if let requester { return try requester() }
        let client = try await BooksClient.connect(socketPath: socketPath, clientName: "booksctl")
        guard let store else { return client }
        return client.store(store)
    }
}
