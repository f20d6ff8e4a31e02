import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import FoundationEssentials

/// The commands over NATS (`--nats`): requests through `NATSBooksClient`, `subscribe` through
/// `NATSFeed` (`NATSSubscribeCommand`); the same options, output and exit codes as over the socket.
enum NATSCommands {
    static func run(_ command: Command, _ target: NATSTarget) async -> ExitCode {
        var context = CommandContext(socketPath: "")
        let connect: @Sendable () throws(BooksClientError) -> any BookRequests = {
            try NATSBooksClient(options: target.options, prefix: target.prefix, store: target.store)
        }
        context.requester = connect
        let prepared = context
        return await Booksctl.dispatch(command, prepared) { options throws(BooksClientError) in
            try await NATSSubscribeCommand.run(options, target, prepared)
        }
    }
}
