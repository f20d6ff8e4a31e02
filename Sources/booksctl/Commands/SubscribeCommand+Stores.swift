import BooksClient
import BooksCore
import BooksPlatform
import BooksProtocol
import FoundationEssentials

extension SubscribeCommand {
    /// What a daemon serves, asked once before a feed without `--store`.
    enum Served: Equatable {
        /// One store: its name, or nil when the daemon speaks protocol version 1 or cannot be
        /// asked now (the single feed then reports it, as before stores existed).
        case one(String?)
        /// Several stores: the feed follows every one.
        case several
    }

    /// Asks the daemon how many stores it serves.
    static func served(_ context: CommandContext) async throws(BooksClientError) -> Served {
        let client: BooksClient
        do {
            client = try await BooksClient.connect(socketPath: context.socketPath, clientName: "booksctl")
        } catch {
            guard error.isTransient else { throw error }
            return .one(nil)
        }
        defer { client.close() }
        guard client.protocolVersion >= ProtocolVersion.stores else { return .one(nil) }
        let stores = try await client.stores()
        return stores.count == 1 ? .one(stores[0].name) : .several
    }

    /// The feed over several stores: each line names its store. The options that keep one
    /// position (`--since`, `--cursor-file`) or act per change set (`--exec`, `--count`, `--once`)
    /// need one store.
    static func runStores(
        _ options: SubscribeOptions, stores: [String], _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let err = context.err
        if options.since != nil || options.cursorFile != nil || options.exec != nil || options.count != nil {
            err.line(
                "booksctl: --since, --cursor-file, --exec, --count and --once follow one store: name it with --store")
            return .usage
        }
        let subscription = ResilientStoresSubscription(base: resilientSubscription(options, context), stores: stores) {
            item in
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
        try await subscription.forEachUpdate { store, received in
            var update = received
            if update.time == nil { update.time = Date() }
            var buffer = ""
            formatter.forEachLine(for: update, store: store) { line in
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

    /// The reconnecting subscription `options` ask for; its reconnections and the gaps they leave
    /// are told on stderr (`ReconnectNotices`).
    static func resilientSubscription(_ options: SubscribeOptions, _ context: CommandContext) -> ResilientSubscription {
        let err = context.err
        let notices = Locked(ReconnectNotices(mirror: options.mirror || options.initial))
        return ResilientSubscription(
            socketPath: context.socketPath, filter: options.filter, initial: options.initial,
            mirror: options.mirror,
            onStatus: { status in
                if let line = notices.withLock({ $0.notice(for: status) }) { err.line("booksctl: \(line)") }
            })
    }
}
