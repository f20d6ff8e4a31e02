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

    /// Connects (the socket: and says hello).
    func connect() async throws(BooksClientError) -> any BookRequests {
        if let requester { return try requester() }
        return try await BooksClient.connect(socketPath: socketPath, clientName: "booksctl")
    }
}
