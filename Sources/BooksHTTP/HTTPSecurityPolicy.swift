/// Who may talk to the HTTP server: the host names it answers to, the bearer token, and how
/// large a request may be. Pure: `HTTPRouter` asks it before anything else.
public struct HTTPSecurityPolicy: Sendable, Hashable {
    /// Host names (lowercased, IPv6 in brackets) a `Host` header may name: the listen addresses,
    /// `localhost` for loopback ones, and the configured `http_hosts`.
    public var hosts: Set<String>
    /// Ports a `Host` header may name (the listen ports); a `Host` without a port is accepted too.
    public var ports: Set<Int>
    /// The bearer tokens one of which every request must carry (`Authorization: Bearer …`),
    /// or nil (no token needed).
    public var tokens: HTTPTokens?
    /// `http_require_if_match`: `PUT` and `DELETE` without `If-Match` are refused (428).
    public var requireIfMatch: Bool
    /// The largest request body accepted (`max_request_bytes`).
    public var maxBodyBytes: Int

    /// A policy.
    public init(hosts: Set<String>, ports: Set<Int>, tokens: HTTPTokens?, requireIfMatch: Bool, maxBodyBytes: Int) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.ports = ports
        self.tokens = tokens
        self.requireIfMatch = requireIfMatch
        self.maxBodyBytes = maxBodyBytes
    }

    /// The refusal of `head`, or nil when it may go on: 400/421 for a missing or foreign `Host`
    /// (DNS rebinding), 401 without a token, 403 for a mutating request with a read token, from a
    /// foreign `Origin` or a cross-site fetch (CSRF); CORS is off, so `OPTIONS` is 405.
    public func refusal(of head: HTTPRequestHead) -> HTTPResponse? {
        guard let host = head.header("Host"), !host.isEmpty else {
            return .error(400, code: "bad-host", message: "a Host header is required")
        }
        guard admits(host: host) else {
            return .error(
                421, code: "bad-host", message: "this booksd does not answer to the host \(host) (http_hosts)")
        }
        if let tokens {
            guard let entry = tokens.entry(authorization: head.header("Authorization")) else {
                return .error(
                    401, code: "unauthorized", message: "a bearer token is required (Authorization: Bearer …)",
                    headers: [HTTPHeader("WWW-Authenticate", "Bearer")])
            }
            if entry.role == .read, head.isMutating {
                return .error(403, code: "read-only-token", message: "this token may only read (http_token_file)")
            }
        }
        if head.method == "OPTIONS" {
            return .error(
                405, code: "method-not-allowed", message: "cross-origin requests are not allowed (CORS is off)")
        }
        if head.isMutating {
            if let origin = head.header("Origin"), !admits(origin: origin) {
                return .error(403, code: "foreign-origin", message: "a request from the origin \(origin) may not write")
            }
            if head.header("Sec-Fetch-Site") == "cross-site" {
                return .error(403, code: "foreign-origin", message: "a cross-site request may not write")
            }
        }
        return nil
    }

    /// True when the `Host` header value `host` names this server.
    public func admits(host: String) -> Bool {
        let lowered = host.lowercased()
        let name: Substring
        var port: Substring?
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return false }
            name = lowered[...close]
            let rest = lowered[lowered.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = lowered.firstIndex(of: ":") {
            name = lowered[..<colon]
            port = lowered[lowered.index(after: colon)...]
        } else {
            name = Substring(lowered)
        }
        guard hosts.contains(String(name)) else { return false }
        guard let port else { return true }
        guard let number = Int(port) else { return false }
        return ports.contains(number)
    }

    /// True when the `Origin` header value `origin` is this server (`http(s)://HOST[:PORT]`).
    public func admits(origin: String) -> Bool {
        for scheme in ["http://", "https://"] where origin.lowercased().hasPrefix(scheme) {
            return admits(host: String(origin.dropFirst(scheme.count)))
        }
        return false
    }
}

/// The `ETag` of a book (its version, quoted) and the parsing of `If-Match`.
public enum ETag {
    /// `"VERSION"`.
    public static func format(_ version: UInt64) -> String { "\"\(version)\"" }

    /// The version an `If-Match` value names: nil for none or `*`; a failure for anything but
    /// one (optionally weak) quoted or bare number.
    public static func parseIfMatch(_ value: String?) -> Result<UInt64?, ETagError> {
        guard var text = value?.trimmingCharacters(in: " \t"), !text.isEmpty, text != "*" else { return .success(nil) }
        if text.hasPrefix("W/") { text = String(text.dropFirst(2)) }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        guard let version = UInt64(text) else { return .failure(ETagError()) }
        return .success(version)
    }
}

/// An `If-Match` that names no version.
public struct ETagError: Error, Sendable, Hashable {}

extension String {
    /// The string without leading and trailing characters from `set`.
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
