import BooksNATS
import BooksProtocol

/// Creates the store's stream and bucket when missing and refuses a conflicting existing stream.
struct NATSStreamSetup: Sendable {
    let naming: NATSNaming
    let settings: NATSSettings

    /// The stream BookSync wants for the store.
    var wanted: NATSStreamSettings {
        NATSStreamSettings(
            name: naming.streamName, subjects: [naming.changesSubject], replicas: settings.streamReplicas,
            maxAgeSeconds: Int64(settings.streamMaxAgeSeconds),
            maxBytes: settings.streamMaxBytes == 0 ? -1 : Int64(settings.streamMaxBytes),
            duplicateWindowSeconds: settings.streamMaxAgeSeconds > 0
                ? min(120, Int64(settings.streamMaxAgeSeconds)) : 120)
    }

    /// Makes sure the stream exists with compatible settings. Blocks.
    /// - Throws: `NATSError` when it cannot be read or created, or conflicts (status 0, with
    ///   every difference named).
    func ensureStream(_ jetStream: JetStream) throws(NATSError) {
        let wanted = self.wanted
        let found: NATSStreamSettings?
        do {
            found = try jetStream.streamSettings(wanted.name)
        } catch  where error.isJetStreamUnavailable {
            var explained = error
            explained.text += " (JetStream is not enabled on this server or account: nats-server needs -js)"
            throw explained
        }
        guard let existing = found else {
            try jetStream.addStream(wanted)
            return
        }
        let conflicts = wanted.conflicts(with: existing)
        guard conflicts.isEmpty else {
            throw NATSError(
                context: "JetStream stream \(wanted.name) exists with a conflicting configuration",
                text: conflicts.joined(separator: "; ")
                    + " (change the nats_stream_* settings to match, or remove the stream with `nats stream rm`)")
        }
    }

    /// The store's bucket, created when missing. Blocks.
    func bucket(_ jetStream: JetStream) throws(NATSError) -> KeyValueStore {
        try jetStream.keyValue(
            naming.bucketName, replicas: settings.streamReplicas,
            maxBytes: settings.streamMaxBytes == 0 ? -1 : Int64(settings.streamMaxBytes))
    }
}
