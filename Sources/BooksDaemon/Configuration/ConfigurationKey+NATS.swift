/// The `nats_*` keys (issue 14), kept apart from the local daemon's keys.
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
            nats.urls = urls
        case .natsCredentials: nats.credentialsFile = try text()
        case .natsUser: nats.user = try text()
        case .natsPassword: nats.password = try text()
        case .natsToken: nats.token = try text()
        case .natsTLSCA: nats.tlsCAFile = try text()
        case .natsTLSCert: nats.tlsCertificateFile = try text()
        case .natsTLSKey: nats.tlsKeyFile = try text()
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
        if old.password != new.password { changed.append(.natsPassword) }
        if old.token != new.token { changed.append(.natsToken) }
        return changed.map(\.rawValue)
    }

    /// The value of a `nats_*` key as it could be written in `booksd.conf` (secrets masked).
    func natsFormattedValue(in nats: NATSSettings) -> String {
        switch self {
        case .natsURL: nats.urls.isEmpty ? "(off)" : nats.urls.joined(separator: ",")
        case .natsCredentials: nats.credentialsFile ?? ""
        case .natsUser: nats.user ?? ""
        case .natsPassword: nats.password == nil ? "" : "(set)"
        case .natsToken: nats.token == nil ? "" : "(set)"
        case .natsTLSCA: nats.tlsCAFile ?? ""
        case .natsTLSCert: nats.tlsCertificateFile ?? ""
        case .natsTLSKey: nats.tlsKeyFile ?? ""
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
