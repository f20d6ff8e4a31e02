/// The `http_*` settings of `booksd`: the HTTP API and web page (docs/HTTP.md). Off while
/// `listen` is empty.
public struct HTTPSettings: Sendable, Equatable {
    /// One address the HTTP server listens on.
    public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
        /// The numeric host (`127.0.0.1`, `::1`, `0.0.0.0`; IPv6 without brackets).
        public var host: String
        /// The port (0: any free port, for tests).
        public var port: Int
        /// `unix:/path`: a Unix socket at this absolute path instead of a TCP address (`host`
        /// is then empty, `port` 0).
        public var unixPath: String?

        /// An address.
        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        /// A Unix socket address.
        public init(unixPath: String) {
            self.host = ""
            self.port = 0
            self.unixPath = unixPath
        }

        /// True for 127.0.0.0/8, ::1 and Unix sockets (local by nature).
        public var isLoopback: Bool { unixPath != nil || host.hasPrefix("127.") || host == "::1" }

        /// `HOST:PORT` (IPv6 in brackets) or `unix:/path`.
        public var description: String {
            if let unixPath { return "unix:\(unixPath)" }
            return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }

        /// Parses `127.0.0.1:8080`, `[::1]:8080` (numeric addresses only) or `unix:/absolute/path`.
        public static func parse(_ text: String) -> ListenAddress? {
            if text.hasPrefix("unix:") {
                let path = String(text.dropFirst(5))
                guard path.hasPrefix("/"), path.utf8.count < 108, !path.contains("\0") else { return nil }
                return ListenAddress(unixPath: path)
            }
            let host: Substring
            let port: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                    return nil
                }
                host = text[text.index(after: text.startIndex)..<close]
                port = text[text.index(close, offsetBy: 2)...]
                guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                    return nil
                }
            } else {
                guard let colon = text.lastIndex(of: ":") else { return nil }
                host = text[..<colon]
                port = text[text.index(after: colon)...]
                let parts = host.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return nil }
            }
            guard let number = Int(port), (0...65_535).contains(number) else { return nil }
            return ListenAddress(host: String(host), port: number)
        }
    }

    /// `http_listen`: where to listen (comma-separated). Default none: HTTP off.
    public var listen: [ListenAddress] = []
    /// `http_hosts`: host names the `Host` header may name besides the listen addresses (and
    /// `localhost` for loopback ones), e.g. the name a reverse proxy forwards.
    public var hosts: [String] = []
    /// `http_tls_cert`: PEM certificate file; with `http_tls_key` the server speaks HTTPS.
    public var tlsCertificateFile: String?
    /// `http_tls_key`: PEM private key file.
    public var tlsKeyFile: String?
    /// `http_token_file`: a file holding the bearer token every request must carry.
    public var tokenFile: String?
    /// `http_require_if_match`: `PUT`/`DELETE` without `If-Match` are refused (428). Default no.
    public var requireIfMatch = false
    /// `http_client_connections`: connections one client address may hold. Default 32.
    public var maxConnectionsPerClient = 32

    /// All defaults: HTTP off.
    public init() {}

    /// True when `http_listen` is set.
    public var isEnabled: Bool { !listen.isEmpty }

    /// Why these settings cannot start, one sentence each: a non-loopback address needs TLS and
    /// a token; a certificate needs its key.
    public var problems: [String] {
        var problems: [String] = []
        if (tlsCertificateFile == nil) != (tlsKeyFile == nil) {
            problems.append("http_tls_cert and http_tls_key go together: set both or neither")
        }
        for address in listen where !address.isLoopback {
            if tlsCertificateFile == nil || tokenFile == nil {
                problems.append(
                    "http_listen = \(address) is not a loopback address: it needs TLS (http_tls_cert, http_tls_key) "
                        + "and a bearer token (http_token_file)")
            }
        }
        return problems
    }
}
