import BooksCore
import Glibc

/// The keys accepted in `booksd.conf`, in the order they are documented and summarised.
public enum ConfigurationKey: String, Sendable, CaseIterable {
    case file, format, socket
    case socketMode = "socket_mode"
    case writerUsers = "writer_users"
    case writerGroups = "writer_groups"
    case confirmationMilliseconds = "confirmation_ms"
    case settleMilliseconds = "settle_ms"
    case pollIntervalMilliseconds = "poll_interval_ms"
    case forcePolling = "force_polling"
    case allowSymlink = "allow_symlink"
    case changeLogRetention = "change_log_retention"
    case stateDirectory = "state_directory"
    case storeFolder = "store_folder"
    case replicaFolder = "replica_folder"
    case heartbeatSeconds = "heartbeat_seconds"
    case maxClients = "max_clients"
    case maxClientsPerUID = "max_clients_per_uid"
    case maxRequestBytes = "max_request_bytes"
    case clientQueueBytes = "client_queue_bytes"
    case pageBudgetBytes = "page_budget_bytes"
    case helloTimeoutSeconds = "hello_timeout_seconds"
    case idleTimeoutSeconds = "idle_timeout_seconds"
    case partialLineBudgetBytes = "partial_line_budget_bytes"
    case queryBudgetMilliseconds = "query_budget_ms"
    case maxLineBytes = "max_line_bytes"
    case logLevel = "log_level"
    case natsURL = "nats_url"
    case natsCredentials = "nats_credentials"
    case natsUser = "nats_user"
    case natsPassword = "nats_password"
    case natsToken = "nats_token"
    case natsTLSCA = "nats_tls_ca"
    case natsTLSCert = "nats_tls_cert"
    case natsTLSKey = "nats_tls_key"
    case natsPrefix = "nats_prefix"
    case natsStreamReplicas = "nats_stream_replicas"
    case natsStreamMaxAgeSeconds = "nats_max_age_seconds"
    case natsStreamMaxBytes = "nats_stream_max_bytes"
    case natsAllowWrites = "nats_allow_writes"
    case natsBuffer = "nats_buffer"
    case natsBatch = "nats_batch"
    case maxStores = "max_stores"
    case historyMaxAge = "history_max_age"
    case historyMaxBytes = "history_max_bytes"
    case httpListen = "http_listen"
    case httpHosts = "http_hosts"
    case httpTLSCert = "http_tls_cert"
    case httpTLSKey = "http_tls_key"
    case httpTokenFile = "http_token_file"
    case httpRequireIfMatch = "http_require_if_match"
    case httpClientConnections = "http_client_connections"

    /// What a valid value looks like, as shown in `invalidValue` errors.
    public var expected: String {
        switch self {
        case .file: "a non-empty path"
        case .socket: "a non-empty path shorter than 108 bytes"
        case .format: "one of: text, json"
        case .socketMode: "an octal mode between 0000 and 0777, e.g. 0660"
        case .writerUsers: "a comma-separated list of user names or numeric UIDs"
        case .writerGroups: "a comma-separated list of group names or numeric GIDs"
        case .confirmationMilliseconds, .settleMilliseconds: "an integer number of milliseconds between 0 and 3600000"
        case .pollIntervalMilliseconds: "an integer number of milliseconds between 10 and 3600000"
        case .forcePolling, .allowSymlink: "a boolean: yes/no, true/false, on/off, 1/0"
        case .changeLogRetention: "an integer between 0 and 100000000"
        case .stateDirectory: "a non-empty path, or none"
        case .storeFolder, .replicaFolder: "a non-empty directory path"
        case .heartbeatSeconds: "an integer number of seconds between 1 and 86400"
        case .maxClients: "an integer between 1 and 1000000"
        case .maxClientsPerUID: "an integer between 0 (no limit) and 1000000"
        case .maxRequestBytes, .maxLineBytes, .clientQueueBytes, .partialLineBudgetBytes, .pageBudgetBytes:
            "a size between 1 KiB and 1 GiB: bytes, or a number with suffix K, M, G (KiB, MiB, GiB)"
        case .helloTimeoutSeconds: "an integer number of seconds between 1 and 3600"
        case .idleTimeoutSeconds: "an integer number of seconds between 0 (off) and 86400"
        case .queryBudgetMilliseconds: "an integer number of milliseconds between 0 (no budget) and 3600000"
        case .logLevel: "one of: " + LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
        case .maxStores: "an integer between 1 and 1000000"
        case .historyMaxAge: "a duration: seconds, or a number with suffix s, m, h, d (up to 3650d); 0: no age limit"
        case .historyMaxBytes:
            "a size between 1 KiB and 64 GiB: bytes, or a number with suffix K, M, G; 0: no size limit"
        default: Self.httpKeys.contains(self) ? httpExpected : natsExpected
        }
    }

    /// Parses `value` (already unquoted) and stores it in `config`.
    /// - Throws: `.invalidValue`, `.unknownUser` or `.unknownGroup`, naming `line` and this key.
    public func apply(
        _ value: String, line: Int, to config: inout DaemonConfiguration,
        resolver: AccountResolver
    ) throws(ConfigurationError) {
        let bad = ConfigurationError.invalidValue(line: line, key: rawValue, value: value, expected: expected)
        switch self {
        case .file:
            guard !value.isEmpty, !value.contains("\0") else { throw bad }
            config.filePath = value
            config.fileIsExplicit = true
        case .socket:
            guard !value.isEmpty, value.utf8.count < 108, !value.contains("\0") else { throw bad }
            config.socketPath = value
        case .format:
            guard let f = BookFileFormat(rawValue: value) else { throw bad }
            config.format = f
        case .socketMode:
            var digits = Substring(value)
            if digits.hasPrefix("0o") { digits = digits.dropFirst(2) }
            guard !digits.isEmpty, digits.count <= 4, let mode = UInt32(digits, radix: 8), mode <= 0o777 else {
                throw bad
            }
            config.socketMode = mode_t(mode)
        case .writerUsers:
            var ids: [uid_t] = []
            for item in Self.list(value) {
                if let n = UInt32(item) {
                    ids.append(uid_t(n))
                    continue
                }
                guard Self.isAccountName(item) else { throw bad }
                guard let id = resolver.userID(item) else { throw .unknownUser(line: line, key: rawValue, name: item) }
                ids.append(id)
            }
            config.writerUIDs = ids
        case .writerGroups:
            var ids: [gid_t] = []
            for item in Self.list(value) {
                if let n = UInt32(item) {
                    ids.append(gid_t(n))
                    continue
                }
                guard Self.isAccountName(item) else { throw bad }
                guard let id = resolver.groupID(item) else {
                    throw .unknownGroup(line: line, key: rawValue, name: item)
                }
                ids.append(id)
            }
            config.writerGroups = ids
        case .confirmationMilliseconds:
            config.confirmationMilliseconds = try Self.integer(value, 0...3_600_000, or: bad)
        case .settleMilliseconds:
            config.settleMilliseconds = try Self.integer(value, 0...3_600_000, or: bad)
        case .pollIntervalMilliseconds:
            config.pollIntervalMilliseconds = try Self.integer(value, 10...3_600_000, or: bad)
        case .forcePolling:
            config.forcePolling = try Self.boolean(value, or: bad)
        case .allowSymlink:
            config.allowSymlink = try Self.boolean(value, or: bad)
        case .changeLogRetention:
            config.changeLogRetention = try Self.integer(value, 0...100_000_000, or: bad)
        case .stateDirectory:
            guard !value.isEmpty, !value.contains("\0") else { throw bad }
            config.stateDirectory = value
        case .storeFolder:
            guard !value.isEmpty, !value.contains("\0") else { throw bad }
            config.storeFolder = value
        case .replicaFolder:
            guard !value.isEmpty, !value.contains("\0") else { throw bad }
            config.replicaFolder = value
        case .heartbeatSeconds:
            config.heartbeatSeconds = try Self.integer(value, 1...86_400, or: bad)
        case .maxClients:
            config.maxClients = try Self.integer(value, 1...1_000_000, or: bad)
        case .maxClientsPerUID:
            config.maxClientsPerUID = try Self.integer(value, 0...1_000_000, or: bad)
        case .maxRequestBytes:
            config.maxRequestBytes = try Self.size(value, or: bad)
        case .clientQueueBytes:
            config.clientQueueBytes = try Self.size(value, or: bad)
        case .pageBudgetBytes:
            config.pageBudgetBytes = try Self.size(value, or: bad)
        case .helloTimeoutSeconds:
            config.helloTimeoutSeconds = try Self.integer(value, 1...3_600, or: bad)
        case .idleTimeoutSeconds:
            config.idleTimeoutSeconds = try Self.integer(value, 0...86_400, or: bad)
        case .partialLineBudgetBytes:
            config.partialLineBudgetBytes = try Self.size(value, or: bad)
        case .queryBudgetMilliseconds:
            config.queryBudgetMilliseconds = try Self.integer(value, 0...3_600_000, or: bad)
        case .maxLineBytes:
            config.maxLineBytes = try Self.size(value, or: bad)
        case .logLevel:
            guard let level = LogLevel(rawValue: value.lowercased()) else { throw bad }
            config.logLevel = level
        case .maxStores:
            config.maxStores = try Self.integer(value, 1...1_000_000, or: bad)
        case .historyMaxAge:
            config.historyMaxAgeSeconds = try Self.duration(value, or: bad)
        case .historyMaxBytes:
            config.historyMaxBytes = value == "0" ? 0 : try Self.size(value, upTo: 64 << 30, or: bad)
        default:
            if Self.httpKeys.contains(self) { return try applyHTTP(value, to: &config.http, or: bad) }
            try applyNATS(value, to: &config.nats, or: bad)
        }
    }

    /// The value of this key in `config`, spelled as it could be written in `booksd.conf`.
    public func formattedValue(in config: DaemonConfiguration, environment: [String: String]) -> String {
        switch self {
        case .file: config.filePath
        case .format: config.format.rawValue
        case .socket: config.socketPath ?? "\(config.effectiveSocketPath(environment: environment))  (default)"
        case .socketMode: "0" + String(config.socketMode, radix: 8)
        case .writerUsers: config.writerUIDs.map(String.init).joined(separator: ", ")
        case .writerGroups: config.writerGroups.map(String.init).joined(separator: ", ")
        case .confirmationMilliseconds: String(config.confirmationMilliseconds)
        case .settleMilliseconds: String(config.settleMilliseconds)
        case .pollIntervalMilliseconds: String(config.pollIntervalMilliseconds)
        case .forcePolling: config.forcePolling ? "yes" : "no"
        case .allowSymlink: config.allowSymlink ? "yes" : "no"
        case .changeLogRetention: String(config.changeLogRetention)
        case .stateDirectory:
            config.stateDirectory
                ?? "\(config.effectiveStateDirectory(environment: environment) ?? "none")  (default)"
        case .storeFolder: config.storeFolder ?? "(none)"
        case .replicaFolder: config.replicaFolder ?? "(none)"
        case .heartbeatSeconds: String(config.heartbeatSeconds)
        case .maxClients: String(config.maxClients)
        case .maxClientsPerUID: String(config.maxClientsPerUID)
        case .maxRequestBytes: String(config.maxRequestBytes)
        case .clientQueueBytes: String(config.clientQueueBytes)
        case .pageBudgetBytes: String(config.pageBudgetBytes)
        case .helloTimeoutSeconds: String(config.helloTimeoutSeconds)
        case .idleTimeoutSeconds: String(config.idleTimeoutSeconds)
        case .partialLineBudgetBytes: String(config.partialLineBudgetBytes)
        case .queryBudgetMilliseconds: String(config.queryBudgetMilliseconds)
        case .maxLineBytes: String(config.maxLineBytes)
        case .logLevel: config.logLevel.rawValue
        case .maxStores: String(config.maxStores)
        case .historyMaxAge: "\(config.historyMaxAgeSeconds)s"
        case .historyMaxBytes: String(config.historyMaxBytes)
        default:
            Self.httpKeys.contains(self) ? httpFormattedValue(in: config.http) : natsFormattedValue(in: config.nats)
        }
    }

    static func list(_ value: String) -> [String] {
        value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
    }

    static func isAccountName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 256
            && s.unicodeScalars.allSatisfy {
                ($0.properties.isAlphabetic && $0.isASCII) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                    || $0 == "." || $0 == "$"
            }
    }

    static func integer(
        _ value: String, _ range: ClosedRange<Int>, or error: ConfigurationError
    ) throws(ConfigurationError) -> Int {
        guard value.allSatisfy(\.isASCII), let n = Int(value), range.contains(n) else { throw error }
        return n
    }

    static func boolean(_ value: String, or error: ConfigurationError) throws(ConfigurationError) -> Bool {
        switch value.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw error
        }
    }

    /// A duration in seconds: `N` or `N` with suffix s, m, h or d (0 … 3650 days).
    static func duration(_ value: String, or error: ConfigurationError) throws(ConfigurationError) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = value
        var unit = 1
        if let last = value.last, let seconds = units[last] {
            number = String(value.dropLast())
            unit = seconds
        }
        let seconds = try integer(number, 0...(3650 * 86_400), or: error) * unit
        guard seconds <= 3650 * 86_400 else { throw error }
        return seconds
    }

    static func size(
        _ value: String, upTo limit: Int = 1 << 30, or error: ConfigurationError
    ) throws(ConfigurationError)
        -> Int
    {
        let multipliers: [(String, Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30),
            ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30),
        ]
        var number = value
        var multiplier = 1
        for (suffix, m) in multipliers where value.uppercased().hasSuffix(suffix.uppercased()) {
            number = String(value.dropLast(suffix.count)).trimmingSpaces()
            multiplier = m
            break
        }
        guard number.allSatisfy(\.isASCII), let n = Int(number), n >= 0 else { throw error }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: multiplier)
        guard !overflow, (1 << 10)...limit ~= bytes else { throw error }
        return bytes
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
