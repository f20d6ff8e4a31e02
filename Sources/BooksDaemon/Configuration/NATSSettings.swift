/// The `nats_*` settings of `booksd` (issue 14): where the change feed is published and where
/// remote requests come from. Publishing is off while `urls` is empty.
public struct NATSSettings: Sendable, Equatable {
    /// Server URLs (`nats_url`, comma-separated; several for a cluster). Default none: NATS off.
    public var urls: [String] = []
    /// A `.creds` file (`nats_credentials`).
    public var credentialsFile: String?
    /// User name (`nats_user`), with `password` (`nats_password`).
    public var user: String?
    /// Password of `user` (`nats_password`).
    public var password: String?
    /// Authentication token (`nats_token`).
    public var token: String?
    /// Trusted CA file; turns TLS on (`nats_tls_ca`).
    public var tlsCAFile: String?
    /// Client certificate for mutual TLS (`nats_tls_cert`, with `nats_tls_key`).
    public var tlsCertificateFile: String?
    /// Client key for mutual TLS (`nats_tls_key`).
    public var tlsKeyFile: String?
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
    public var isEnabled: Bool { !urls.isEmpty }
}
