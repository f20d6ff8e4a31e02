/// The parts of a JetStream stream's (or bucket's) configuration BookSync sets and checks.
public struct NATSStreamSettings: Sendable, Equatable {
    /// The stream's name.
    public var name: String
    /// The subjects it stores.
    public var subjects: [String]
    /// Copies kept in a cluster (1 on a single server).
    public var replicas: Int
    /// Seconds a message is kept; 0 = forever.
    public var maxAgeSeconds: Int64
    /// Bytes kept before the oldest messages are dropped; -1 = no limit.
    public var maxBytes: Int64
    /// Seconds within which a repeated `Nats-Msg-Id` is dropped as a duplicate.
    public var duplicateWindowSeconds: Int64

    /// Creates settings.
    public init(
        name: String, subjects: [String], replicas: Int = 1, maxAgeSeconds: Int64 = 0, maxBytes: Int64 = -1,
        duplicateWindowSeconds: Int64 = 120
    ) {
        self.name = name
        self.subjects = subjects
        self.replicas = replicas
        self.maxAgeSeconds = maxAgeSeconds
        self.maxBytes = maxBytes
        self.duplicateWindowSeconds = duplicateWindowSeconds
    }

    /// How `existing` (a stream found on the server) conflicts with these settings: one phrase per
    /// difference, empty when it is compatible. A longer duplicate window is compatible.
    public func conflicts(with existing: NATSStreamSettings) -> [String] {
        var found: [String] = []
        for subject in subjects where !existing.subjects.contains(subject) {
            found.append("subjects \(existing.subjects) do not include \(subject)")
        }
        if existing.replicas != replicas { found.append("replicas \(existing.replicas), configured \(replicas)") }
        if existing.maxAgeSeconds != maxAgeSeconds {
            found.append("max age \(existing.maxAgeSeconds) s, configured \(maxAgeSeconds) s")
        }
        if existing.maxBytes != maxBytes { found.append("max bytes \(existing.maxBytes), configured \(maxBytes)") }
        if existing.duplicateWindowSeconds < duplicateWindowSeconds {
            found.append(
                "duplicate window \(existing.duplicateWindowSeconds) s, shorter than the \(duplicateWindowSeconds) s needed"
            )
        }
        return found
    }
}
