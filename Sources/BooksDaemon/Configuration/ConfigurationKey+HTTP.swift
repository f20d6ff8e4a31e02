/// The `http_*` keys (the HTTP API and web page), kept apart from the local daemon's keys.
extension ConfigurationKey {
    /// The `http_*` keys.
    static let httpKeys: [ConfigurationKey] = [
        .httpListen, .httpHosts, .httpTLSCert, .httpTLSKey, .httpTokenFile, .httpRequireIfMatch,
        .httpClientConnections,
    ]

    /// What a valid value of an `http_*` key looks like.
    var httpExpected: String {
        switch self {
        case .httpListen:
            "a comma-separated list of numeric HOST:PORT addresses (127.0.0.1:8080, [::1]:8080) and unix:/path "
                + "sockets, or empty"
        case .httpHosts: "a comma-separated list of host names"
        case .httpRequireIfMatch: "a boolean: yes/no, true/false, on/off, 1/0"
        case .httpClientConnections: "an integer between 1 and 100000"
        default: "a non-empty path"
        }
    }

    /// Parses and stores the value of an `http_*` key.
    func applyHTTP(_ value: String, to http: inout HTTPSettings, or bad: ConfigurationError) throws(ConfigurationError)
    {
        switch self {
        case .httpListen:
            var addresses: [HTTPSettings.ListenAddress] = []
            for item in value.split(separator: ",").map({ String($0).trimmingSpaces() }) where !item.isEmpty {
                guard let address = HTTPSettings.ListenAddress.parse(item) else { throw bad }
                addresses.append(address)
            }
            http.listen = addresses
        case .httpHosts:
            http.hosts = Self.list(value).map { $0.lowercased() }
            guard http.hosts.allSatisfy({ !$0.contains("/") }) else { throw bad }
        case .httpTLSCert, .httpTLSKey, .httpTokenFile:
            guard !value.isEmpty, !value.contains("\0") else { throw bad }
            switch self {
            case .httpTLSCert: http.tlsCertificateFile = value
            case .httpTLSKey: http.tlsKeyFile = value
            default: http.tokenFile = value
            }
        case .httpRequireIfMatch: http.requireIfMatch = try Self.boolean(value, or: bad)
        case .httpClientConnections: http.maxConnectionsPerClient = try Self.integer(value, 1...100_000, or: bad)
        default: throw bad
        }
    }

    /// The value of an `http_*` key as it could be written in `booksd.conf`.
    func httpFormattedValue(in http: HTTPSettings) -> String {
        switch self {
        case .httpListen: http.listen.isEmpty ? "(off)" : http.listen.map(\.description).joined(separator: ",")
        case .httpHosts: http.hosts.joined(separator: ",")
        case .httpTLSCert: http.tlsCertificateFile ?? ""
        case .httpTLSKey: http.tlsKeyFile ?? ""
        case .httpTokenFile: http.tokenFile ?? ""
        case .httpRequireIfMatch: http.requireIfMatch ? "yes" : "no"
        case .httpClientConnections: String(http.maxConnectionsPerClient)
        default: ""
        }
    }
}
