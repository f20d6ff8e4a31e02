import BooksProtocol

/// The `nats_*` keys, kept apart from the local daemon's keys.
extension ConfigurationKey {
    /// What a valid value of a `nats_*` key looks like.
    var natsExpected: String {
        switch self {
        case .natsURL: "a comma-separated list of nats://, tls:// or ws:// URLs, or empty (off)"
        case .natsPrefix: "1 to 64 characters from A-Z a-z 0-9 _ -"
        case .natsStreamReplicas: "an integer between 1 and 5"
        case .natsStreamMaxAgeSeconds: "an integer number of seconds, 0 (forever) to 315360000"
        case .natsStreamMaxBytes: "a size between 1 KiB and 1 GiB, or 0 (no limit)"
        case .natsAllowWrites: "a boolean: yes/no, true/false, on/off, 1/0"
        case .natsBuffer: "an integer between 16 and 1000000"
        case .natsBatch: "an integer between 1 and 4096"
        default: "a non-empty value (a path, a user name, a password or a token)"
        }
    }

    /// Parses and stores the value of a `nats_*` key.
    func applyNATS(_ value: String, to nats: inout NATSSettings, or bad: ConfigurationError) throws(ConfigurationError)
    {
        func text() throws(ConfigurationError) -> String {
            guard !value.isEmpty, !value.contains("\0") else { throw bad }
            return value
        }
        switch self {
        case .natsURL:
            let urls = value.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            let schemes = ["nats://", "tls://", "ws://", "wss://"]
            guard urls.allSatisfy({ url in schemes.contains { url.hasPrefix($0) } && url.count > 7 }) else {
                throw bad
            }
            nats.connection.urls = urls
        case .natsCredentials: nats.connection.credentialsFile = try text()
        case .natsUser: nats.connection.user = try text()
        case .natsPassword: nats.connection.password = try text()
        case .natsToken: nats.connection.token = try text()
        case .natsTLSCA: nats.connection.tlsCAFile = try text()
        case .natsTLSCert: nats.connection.tlsCertificateFile = try text()
        case .natsTLSKey: nats.connection.tlsKeyFile = try text()
        case .natsPrefix:
            guard NATSNaming.isValidName(value) else { throw bad }
            nats.prefix = value
        case .natsStreamReplicas: nats.streamReplicas = try Self.integer(value, 1...5, or: bad)
        case .natsStreamMaxAgeSeconds: nats.streamMaxAgeSeconds = try Self.integer(value, 0...315_360_000, or: bad)
        case .natsStreamMaxBytes: nats.streamMaxBytes = value == "0" ? 0 : try Self.size(value, or: bad)
        case .natsAllowWrites: nats.allowWrites = try Self.boolean(value, or: bad)
        case .natsBuffer: nats.bufferCapacity = try Self.integer(value, 16...1_000_000, or: bad)
        case .natsBatch: nats.batchLimit = try Self.integer(value, 1...4096, or: bad)
        default: throw bad
        }
    }

    /// The `nats_*` keys whose values differ between `old` and `new` (secrets compared, not shown).
    static func changedNATSKeys(from old: NATSSettings, to new: NATSSettings) -> [String] {
        var changed = allCases.filter {
            $0.rawValue.hasPrefix("nats_") && $0.natsFormattedValue(in: old) != $0.natsFormattedValue(in: new)
        }
        if old.connection.password != new.connection.password { changed.append(.natsPassword) }
        if old.connection.token != new.connection.token { changed.append(.natsToken) }
        return changed.map(\.rawValue)
    }

    /// The value of a `nats_*` key as it could be written in `booksd.conf` (secrets masked).
    func natsFormattedValue(in nats: NATSSettings) -> String {
        switch self {
        case .natsURL: nats.connection.urls.isEmpty ? "(off)" : nats.connection.urls.joined(separator: ",")
        case .natsCredentials: nats.connection.credentialsFile ?? ""
        case .natsUser: nats.connection.user ?? ""
        case .natsPassword: nats.connection.password == nil ? "" : "(set)"
        case .natsToken: nats.connection.token == nil ? "" : "(set)"
        case .natsTLSCA: nats.connection.tlsCAFile ?? ""
        case .natsTLSCert: nats.connection.tlsCertificateFile ?? ""
        case .natsTLSKey: nats.connection.tlsKeyFile ?? ""
        case .natsPrefix: nats.prefix
        case .natsStreamReplicas: String(nats.streamReplicas)
        case .natsStreamMaxAgeSeconds: String(nats.streamMaxAgeSeconds)
        case .natsStreamMaxBytes: String(nats.streamMaxBytes)
        case .natsAllowWrites: nats.allowWrites ? "yes" : "no"
        case .natsBuffer: String(nats.bufferCapacity)
        case .natsBatch: String(nats.batchLimit)
        default: ""
        }
    }
}
