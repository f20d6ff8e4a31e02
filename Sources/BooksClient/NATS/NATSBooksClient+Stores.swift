import BooksNATS
import BooksProtocol

/// `stores` over NATS: there is no one daemon to ask, so each store published under the prefix
/// is asked over its own api subject (answered by the booksd that owns it).
extension NATSBooksClient {
    /// Every store published under this client's prefix (its JetStream streams
    /// `<prefix>_<store>_changes`; none found: this client's store), sorted by name, each as its
    /// owner describes it (`StoreInfo`, as the socket's `stores`). A store no booksd answers for
    /// is listed with state `unavailable` and the reason as its problem.
    /// - Throws: `.daemon` when a daemon refuses; `.nats` when the only store asked does not answer.
    public func stores() async throws(BooksClientError) -> [StoreInfo] {
        let (connection, prefix) = (self.connection, names.prefix)
        let published: [String] = await Self.onThread {
            NATSStoreDirectory.publishedStores(connection, prefix: prefix) ?? []
        }
        guard !published.isEmpty else {
            return try await call(.stores) { $0.store = names.store }.stores ?? []
        }
        var infos: [StoreInfo] = []
        for name in published {
            let store = NATSBooksClient(
                connection: connection, prefix: prefix, store: name, timeoutMilliseconds: timeoutMilliseconds,
                declaredActor: declaredActor)
            do {
                infos += try await store.call(.stores) { $0.store = name }.stores ?? []
            } catch .nats(let reason) {
                infos.append(
                    StoreInfo(
                        name: name, path: "", format: "", state: "unavailable", problem: reason, bookCount: 0,
                        badLines: 0, epoch: "", seq: 0))
            }
        }
        return infos
    }
}
