import BooksNATS

/// Wiring of the NATS publisher and request responder (issue 14) into the daemon.
extension Daemon {
    /// The store name of a daemon serving one `--file` (issue 13 will name several).
    static let singleStoreName = "default"

    /// When `nats_url` is set: connects (in the background), checks the stream, and attaches the
    /// engine to a router that feeds the publisher and the responder besides `server`. Otherwise
    /// attaches the engine to `server` alone.
    /// - Throws: `NATSError` for unusable options or a conflicting existing stream. Refused
    ///   credentials are logged, not thrown: the daemon serves locally without NATS.
    func attachChannel(_ engine: BookEngine, server: SocketServer) throws(NATSError) -> NATSLink? {
        let settings = configuration.nats
        guard settings.isEnabled else {
            engine.attach(server)
            return nil
        }
        let publisher: NATSPublisher
        do throws(NATSError) {
            publisher = try NATSPublisher(
                settings: settings, store: Self.singleStoreName, source: engine, logger: logger)
        } catch  where error.isAuthorizationFailure {
            logger.error(
                """
                NATS connection closed for good: the server refused booksd's credentials (\(error)); NATS stays \
                off until the nats_* settings are fixed and booksd restarted; serving locally
                """)
            engine.attach(server)
            return nil
        }
        let responder = NATSRequestResponder(
            connection: publisher.connection, naming: publisher.naming, allowWrites: settings.allowWrites,
            maxRequestBytes: configuration.maxRequestBytes, logger: logger)
        // The store's own channel (events tagged with the store), else the server.
        engine.attach(NATSChannelRouter(local: engine.channel ?? server, publisher: publisher, responder: responder))
        if !publisher.connection.isConnected {
            logger.warning(
                """
                NATS is not reachable at \(settings.urls.joined(separator: ",")); serving locally and retrying in the \
                background
                """)
        }
        return NATSLink(publisher: publisher, responder: responder)
    }

    /// The NATS parts of a running daemon.
    struct NATSLink: Sendable {
        let publisher: NATSPublisher
        let responder: NATSRequestResponder

        /// Starts publishing from the engine's position and answering requests.
        /// Requests are answered only while this booksd owns the store (see `NATSOwnerLease`).
        func start(engine: BookEngine) throws {
            responder.start(engine: engine)
            publisher.onOwnershipChange { [responder] owner in responder.setActive(owner) }
            try publisher.start(startSeq: engine.position.seq)
        }
    }
}
