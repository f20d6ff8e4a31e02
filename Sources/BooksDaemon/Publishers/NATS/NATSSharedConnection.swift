import BooksCore
import BooksNATS
import BooksPlatform

/// The one NATS connection every store's publisher and responder of a daemon share, with its
/// connection events fanned out to each publisher's inbox.
///
/// Guarantees: connects in the background (an unreachable server is retried, not an error);
/// `register`/`unregister` and the event fan-out only take a leaf lock and never block (posting
/// to an inbox never blocks), so a store added or removed at run time never waits for NATS.
public final class NATSSharedConnection: Sendable {
    /// The connection (thread-safe: the C library serializes its calls).
    public let connection: NATSConnection
    /// The threads every store's publisher on this connection runs on (a few, not one a store).
    let publishing = NATSPublishingThreads()
    private let listeners = Listeners()

    /// The inboxes events go to (a class: the connection's event handler holds it before `self` exists).
    private final class Listeners: Sendable {
        let inboxes = Locked<[ObjectIdentifier: NATSPublisherInbox]>([:])
    }

    /// Connects with `settings.connection`.
    /// - Throws: `NATSError` for unusable options, or a server that refused the credentials
    ///   (`isAuthorizationFailure`).
    public init(settings: NATSSettings, logger: Logger) throws(NATSError) {
        let listeners = self.listeners
        let made = WeakConnection()
        connection = try NATSConnection.connect(
            settings.connection, retryInBackground: true,
            onEvent: { event in
                let input: NATSPublisherInput
                switch event {
                case .connected, .reconnected: input = .connected
                case .disconnected: input = .disconnected
                case .closed:
                    // The library gave up (e.g. the server refused the credentials): local
                    // service goes on, NATS stays off until the configuration is fixed.
                    let reason = made.connection?.lastErrorText ?? "closed by the library"
                    logger.error(
                        "NATS connection closed for good (\(reason)): fix the nats_* settings and restart booksd")
                    input = .disconnected
                }
                for inbox in listeners.inboxes.withLock({ Array($0.values) }) { inbox.post(input) }
            })
        made.set(connection)
    }

    /// Sends this connection's events to `inbox` from now on.
    func register(_ inbox: NATSPublisherInbox) {
        listeners.inboxes.withLock { $0[ObjectIdentifier(inbox)] = inbox }
    }

    /// Stops sending events to `inbox`.
    func unregister(_ inbox: NATSPublisherInbox) {
        _ = listeners.inboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(inbox)) }
    }
}
