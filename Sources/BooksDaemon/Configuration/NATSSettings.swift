import BooksNATS

/// The `nats_*` settings of `booksd`: where the change feed is published and where remote
/// requests come from. Publishing is off while `connection.urls` is empty.
public struct NATSSettings: Sendable, Equatable {
    /// How to reach and authenticate to NATS, the type booksctl and the client use too:
    /// `urls` (`nats_url`, comma-separated; several for a cluster; default none: NATS off),
    /// `credentialsFile` (`nats_credentials`), `user` and `password` (`nats_user`,
    /// `nats_password`), `token` (`nats_token`), `tlsCAFile` (`nats_tls_ca`, turns TLS on),
    /// `tlsCertificateFile` and `tlsKeyFile` (`nats_tls_cert`, `nats_tls_key`: mutual TLS).
    /// The connection is named `booksd`, writes each publish at once (a change set's latency
    /// is two round trips: no flusher wake-ups) and delivers the messages of every subscription
    /// (each store's api requests and publish acknowledgements) from the library's shared
    /// delivery thread, not a thread per subscription: a booksd of 1,000 stores keeps a few
    /// threads for NATS, not thousands.
    public var connection: NATSConnectOptions = {
        var options = NATSConnectOptions(urls: [], name: "booksd")
        options.sendImmediately = true
        options.globalMessageDelivery = true
        return options
    }()
    /// Subject prefix and bucket name prefix (`nats_prefix`). Default `books`.
    public var prefix: String = "books"
    /// Stream and bucket replicas (`nats_stream_replicas`). Default 1.
    public var streamReplicas: Int = 1
    /// Seconds a change set stays in the stream; 0 forever (`nats_max_age_seconds`). Default 0.
    public var streamMaxAgeSeconds: Int = 0
    /// Bytes the stream keeps; 0 no limit (`nats_stream_max_bytes`). Default 0.
    public var streamMaxBytes: Int = 0
    /// Whether requests on `<prefix>.<store>.api` may write (`nats_allow_writes`). Default yes:
    /// who may publish there is NATS's authorization (see config/nats-server.conf.example).
    public var allowWrites: Bool = true
    /// Change sets waiting for a slow NATS before the rest is taken from the change log
    /// (`nats_buffer`). Default 4096.
    public var bufferCapacity: Int = 4096
    /// Most change sets published together, for the cost of one round trip to JetStream
    /// (`nats_batch`). Default 256; 1 publishes change set by change set.
    public var batchLimit: Int = 256

    /// All defaults: NATS off.
    public init() {}

    /// True when `nats_url` is set.
    public var isEnabled: Bool { !connection.urls.isEmpty }
}
