import BooksNATS

/// Wiring of the NATS publishers and request responders into the daemon: one per
/// store, all on one shared connection (see `NATSStoreLinks`).
extension Daemon {
    /// When `nats_url` is set: connects (in the background), checks every serving store's
    /// stream and links the NATS stage each store's channel chain was built with (see
    /// `StoreChannels`) to a publisher and responder of its own, and follows the registry from
    /// then on (a store added later is linked and started, a removed one stops). Otherwise does
    /// nothing (the stages stay unlinked and pass everything on).
    /// - Throws: `NATSError` for unusable options or a conflicting existing stream. Refused
    ///   credentials are logged, not thrown: the daemon serves locally without NATS.
    func attachNATS(_ registry: StoreRegistry) throws(NATSError) -> NATSStoreLinks? {
        let settings = configuration.nats
        guard settings.isEnabled else { return nil }  // replicas without nats_url were refused before
        let shared: NATSSharedConnection
        do throws(NATSError) {
            shared = try NATSSharedConnection(settings: settings, logger: logger)
        } catch  where error.isAuthorizationFailure {
            logger.error(
                """
                NATS connection closed for good: the server refused booksd's credentials (\(error)); NATS stays \
                off until the nats_* settings are fixed and booksd restarted; serving locally
                """)
            return nil
        }
        let links = NATSStoreLinks(
            shared: shared, settings: settings, maxRequestBytes: configuration.maxRequestBytes, logger: logger)
        for engine in registry.engines where !configuration.replicaStores.contains(engine.storeName) {
            try links.attach(engine, checkStream: true)
        }
        attachReplicas(registry, connection: shared.connection)
        links.follow(registry)
        if !shared.connection.isConnected {
            let hint = NATSNetworkProbe.blockedHint().map { "; \($0)" } ?? ""
            logger.warning(
                """
                NATS is not reachable at \(settings.connection.urls.joined(separator: ",")); serving locally and retrying in the \
                background\(hint)
                """)
        }
        return links
    }

    /// Starts publishing and answering for every store linked by `attachNATS` (stores added
    /// since, e.g. by the watched folder, were started when the registry reported them).
    func startNATS(_ links: NATSStoreLinks?, registry: StoreRegistry) throws {
        guard let links else { return }
        for engine in registry.engines { try links.start(engine) }
        for link in replicaLinks.withLock({ $0 }) { try link.start() }
    }
}
