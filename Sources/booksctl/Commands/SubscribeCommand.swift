import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl subscribe`: prints changes until interrupted; reconnects and resumes on its own.
enum SubscribeCommand {
    static func run(_ options: SubscribeOptions, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let err = context.err
        let subscription = ResilientSubscription(
            socketPath: context.socketPath, filter: options.filter, initial: options.initial,
            mirror: options.mirror,
            onStatus: { status in
                switch status {
                case .disconnected(let reason, let delay):
                    err.line(
                        "booksctl: \(TextCell.escape("\(reason)")); reconnecting in \(delay.formattedMilliseconds)")
                case .resyncRequired(let reason) where options.mirror || options.initial:
                    err.line(
                        """
                        booksctl: resync required (\(TextCell.escape(reason))); reporting missed changes from a \
                        snapshot
                        """
                    )
                case .resyncRequired(let reason):
                    err.line(
                        "booksctl: resync required (\(TextCell.escape(reason))); missed changes cannot be reported")
                case .subscribed(let resumed):
                    if resumed { err.line("booksctl: reconnected, resuming") }
                }
            })
        let formatter = ChangeLineFormatter(json: options.json, style: context.style)
        let out = context.out
        // Written from the connection's reader thread as each update arrives (no thread hop):
        // each update's lines in writes of up to 64 KiB, the last one as soon as they are formatted.
        try await subscription.forEachUpdate { update in
            var buffer = ""
            formatter.forEachLine(for: update) { line in
                buffer += line
                buffer += "\n"
                if buffer.utf8.count >= 1 << 16 {
                    out.write(buffer)
                    buffer = ""
                }
            }
            if !buffer.isEmpty { out.write(buffer) }
        }
        return .success
    }
}

extension Duration {
    /// `250 ms`.
    var formattedMilliseconds: String {
        "\(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) ms"
    }
}
