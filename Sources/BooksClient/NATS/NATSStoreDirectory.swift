import BooksNATS
import BooksProtocol

/// Which stores booksd publishes under a NATS prefix, read from the JetStream streams
/// (`<prefix>_<store>_changes`): how a NATS client tells an unknown store (a usage error, as
/// the socket's `unknown-store`) from a booksd that is not running.
enum NATSStoreDirectory {
    /// At most this many names are listed in an `unknown-store` error.
    static let listedNames = 20

    /// Throws `.daemon` with `unknown-store` (the stores there are in `stores`) when `store` has
    /// no stream under `prefix` while other stores do. Nothing when it has one, or when no store
    /// has any (booksd has not published yet: a feed waits for it), or when the server cannot
    /// say. Blocks (one or two JetStream requests).
    static func checkKnown(_ connection: NATSConnection, prefix: String, store: String) throws(BooksClientError) {
        guard let jetStream = try? connection.jetStream(),
            (try? jetStream.streamSettings(NATSNaming.streamName(prefix: prefix, store: store))) == .some(nil),
            let stores = publishedStores(connection, prefix: prefix), !stores.isEmpty
        else { return }
        var listed = Array(stores.prefix(listedNames))
        if stores.count > listedNames { listed.append("… (\(stores.count) in all)") }
        throw .daemon(
            ProtocolError(
                .unknownStore, "no store '\(store)' is published on NATS under the prefix '\(prefix)'",
                stores: listed))
    }
}

extension NATSStoreDirectory {
    /// The stores that have a stream under `prefix` (`<prefix>_<store>_changes`), sorted; nil when
    /// the server cannot say (no JetStream). Blocks (one JetStream request).
    static func publishedStores(_ connection: NATSConnection, prefix: String) -> [String]? {
        guard let names = try? connection.jetStream().streamNames() else { return nil }
        return names.compactMap { NATSNaming.store(ofStreamName: $0, prefix: prefix) }.sorted()
    }
}

extension NATSFeed {
    /// Throws `unknown-store` when the store has no stream but other stores under the prefix do
    /// (see `NATSStoreDirectory`). Blocks.
    public func checkStoreExists() throws(BooksClientError) {
        try NATSStoreDirectory.checkKnown(connection, prefix: names.prefix, store: names.store)
    }

    /// Where to read for only what comes after the stream's last message (subscribe without
    /// `--since`): the socket's "from now on", with that message as the position. Blocks.
    public func resumeAtEnd() throws(BooksClientError) -> Resume {
        do throws(NATSError) {
            guard let (last, sequence) = try lastPosition(try connection.jetStream()) else {
                return Resume(start: .all, point: nil)
            }
            return Resume(start: .sequence(sequence + 1), point: last)
        } catch {
            throw .nats(error.description)
        }
    }
}
