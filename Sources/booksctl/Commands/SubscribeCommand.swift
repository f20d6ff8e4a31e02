import BooksClient
import BooksCore
import BooksProtocol

/// `booksctl subscribe`: prints changes until interrupted; reconnects and resumes on its own.
///
/// One store (`--store NAME` once, or a daemon with a single store): that store's feed, lines as
/// ever. Otherwise (no `--store` and several stores, or `--store` several times): every store
/// (or those named), each line naming its store, one resume point per store.
enum SubscribeCommand {
    static func run(
        _ options: SubscribeOptions, stores: [String], _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        var subscription = resilient(options, context)
        if stores.count == 1 {
            subscription.store = stores[0]
        } else if stores.isEmpty, try await servesOneStore(context) {
            // A daemon with one store (or of protocol version 1): its feed, lines without a store.
        } else {
            return try await runStores(options, stores: stores.isEmpty ? ["*"] : stores, subscription, context)
        }
        let formatter = ChangeLineFormatter(json: options.json, style: context.style)
        let out = context.out
        // Written from the connection's reader thread as each update arrives (no thread hop):
        // each update's lines in writes of up to 64 KiB, the last one as soon as they are formatted.
        try await subscription.forEachUpdate { update in
            writeLines(to: out) { formatter.forEachLine(for: update, $0) }
        }
        return .success
    }

    /// True when the daemon has a single store (or speaks protocol version 1); false when it has
    /// several or cannot be asked now (the feed over every store then waits for it).
    static func servesOneStore(_ context: CommandContext) async throws(BooksClientError) -> Bool {
        let client: BooksClient
        do {
            client = try await BooksClient.connect(socketPath: context.socketPath, clientName: "booksctl")
        } catch {
            guard error.isTransient else { throw error }
            return true  // not reachable: the single feed reports it, as before stores existed
        }
        defer { client.close() }
        guard client.protocolVersion >= ProtocolVersion.stores else { return true }
        return try await client.stores().count == 1
    }

    /// The feed over several stores.
    static func runStores(
        _ options: SubscribeOptions, stores: [String], _ base: ResilientSubscription, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let err = context.err
        let subscription = ResilientStoresSubscription(base: base, stores: stores) { item in
            switch item {
            case .storeAdded(let store, _): err.line("booksctl: store \(TextCell.escape(store)) added")
            case .storeRemoved(let store, let reason):
                err.line("booksctl: store \(TextCell.escape(store)) removed (\(TextCell.escape(reason)))")
            case .subscribeFailed(let store, let reason):
                err.line("booksctl: cannot follow store \(TextCell.escape(store)): \(TextCell.escape(reason))")
            case .item: break
            }
        }
        let formatter = ChangeLineFormatter(json: options.json, style: context.style)
        let out = context.out
        try await subscription.forEachUpdate { store, update in
            writeLines(to: out) { formatter.forEachLine(for: update, store: store, $0) }
        }
        return .success
    }

    /// Writes the lines `produce` hands over, in writes of up to 64 KiB, the last one at once.
    static func writeLines(to out: OutputWriter, _ produce: ((String) -> Void) -> Void) {
        var buffer = ""
        produce { line in
            buffer += line
            buffer += "\n"
            if buffer.utf8.count >= 1 << 16 {
                out.write(buffer)
                buffer = ""
            }
        }
        if !buffer.isEmpty { out.write(buffer) }
    }

    /// The resilient feed `options` describe, reporting its connection events on stderr.
    static func resilient(_ options: SubscribeOptions, _ context: CommandContext) -> ResilientSubscription {
        let err = context.err
        return ResilientSubscription(
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
    }
}

extension Duration {
    /// `250 ms`.
    var formattedMilliseconds: String {
        "\(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) ms"
    }
}
