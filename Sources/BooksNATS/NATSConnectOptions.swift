/// How to reach and authenticate to a NATS server or cluster.
///
/// Value type; `NATSConnection.connect` turns it into the C library's options. At most one of
/// credentials file, user/password and token is expected (the library refuses conflicting ones).
public struct NATSConnectOptions: Sendable, Equatable {
    /// Server URLs (`nats://host:port`, `tls://…`); several for a cluster. Never empty when used.
    public var urls: [String]
    /// A `.creds` file (JWT + NKey seed), or nil.
    public var credentialsFile: String?
    /// User name and password, or nil.
    public var user: String?
    /// The password for `user`.
    public var password: String?
    /// An authentication token, or nil.
    public var token: String?
    /// A PEM file of trusted certificate authorities; setting it turns TLS on.
    public var tlsCAFile: String?
    /// A client certificate chain (PEM) for mutual TLS, with `tlsKeyFile`.
    public var tlsCertificateFile: String?
    /// The client certificate's private key (PEM).
    public var tlsKeyFile: String?
    /// The connection name shown by the server's monitoring.
    public var name: String
    /// Milliseconds allowed for one connection attempt.
    public var connectTimeoutMilliseconds: Int64
    /// Milliseconds between reconnection attempts (the library retries forever).
    public var reconnectWaitMilliseconds: Int64
    /// Deliver the messages of every subscription from the library's shared pool of threads
    /// instead of one thread per subscription (for a process holding thousands of subscriptions).
    public var globalMessageDelivery = false
    /// Milliseconds between two pings; two unanswered pings count as a lost connection.
    public var pingIntervalMilliseconds: Int64 = 2000
    /// Write each message to the socket at once instead of leaving it to the library's flusher
    /// thread (saves a thread wake-up per publish; more system calls under load).
    public var sendImmediately = false

    /// Creates options for `urls` with no authentication and no TLS.
    public init(
        urls: [String], name: String = "booksync", connectTimeoutMilliseconds: Int64 = 2000,
        reconnectWaitMilliseconds: Int64 = 500
    ) {
        self.urls = urls
        self.name = name
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.reconnectWaitMilliseconds = reconnectWaitMilliseconds
    }

    /// Splits a comma-separated URL list (`nats_url`, `--nats`, `BOOKS_NATS`), dropping blanks.
    public static func urls(from list: String) -> [String] {
        list.split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }) }.filter { !$0.isEmpty }
    }
}
