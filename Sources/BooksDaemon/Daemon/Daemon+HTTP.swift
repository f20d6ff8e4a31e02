import BooksHTTP
import Glibc

/// Wiring of the HTTP API and web page (`http_listen`, docs/HTTP.md) into the daemon.
extension Daemon {
    /// The channel of a store's engine: `local` (its `StoreChannel`), routed through the HTTP
    /// gateway when HTTP is on.
    func httpChannel(_ local: any ClientChannel, store: String) -> any ClientChannel {
        guard let gateway = httpGateway else { return local }
        return HTTPChannelRouter(local: local, gateway: gateway, store: store)
    }

    /// Starts the HTTP server on every `http_listen` address, over `registry`'s engines; does
    /// nothing when HTTP is off.
    /// - Throws: `HTTPServerError` for settings that may not start (a non-loopback address
    ///   without TLS and a token), an unreadable certificate, key or token file, or an address
    ///   that cannot be bound.
    func startHTTP(registry: StoreRegistry, router: StoreRouter) throws(HTTPServerError) {
        let settings = configuration.http
        guard settings.isEnabled, let gateway = httpGateway else { return }
        guard settings.problems.isEmpty else { throw .settings(settings.problems) }
        gateway.directory.withLock { $0 = registry }
        registry.observe { [weak gateway] event in
            switch event {
            case .added(let status): gateway?.storeAdded(status.name)
            case .removed(let name, let reason): gateway?.storeRemoved(name.rawValue, reason: reason)
            }
        }
        gateway.describeStores.withLock { $0 = { router.describeStores(registry.storeNames) } }
        let tokens = try settings.tokenFile.map { path throws(HTTPServerError) in
            let text = try Self.readSecret(path)
            do throws(HTTPTokenFileError) {
                return try HTTPTokens.parse(text)
            } catch {
                throw .unreadable(path, error.description)
            }
        }
        var tls: (String, String)?
        if let certificate = settings.tlsCertificateFile, let key = settings.tlsKeyFile {
            tls = (try Self.readSecret(certificate), try Self.readSecret(key))
        }
        var hosts = Set(settings.hosts)
        for address in settings.listen {
            if address.unixPath == nil { hosts.insert(address.host.contains(":") ? "[\(address.host)]" : address.host) }
            if address.isLoopback { hosts.insert("localhost") }
        }
        let limits = HTTPServer.Limits(
            maxConnections: configuration.maxClients, maxConnectionsPerClient: settings.maxConnectionsPerClient,
            timeoutSeconds: configuration.idleTimeoutSeconds > 0 ? configuration.idleTimeoutSeconds : 300,
            maxHeaderBytes: 64 * 1024, tls: tls)
        // The policy needs the ports actually bound (port 0 picks one): bind first.
        let listeners = try HTTPServer.bind(settings.listen, unixMode: configuration.socketMode)
        let policy = HTTPSecurityPolicy(
            hosts: hosts, ports: Set(listeners.map(\.port).filter { $0 >= 0 }), tokens: tokens,
            requireIfMatch: settings.requireIfMatch,
            maxBodyBytes: configuration.maxRequestBytes)
        let server = HTTPServer(gateway: gateway, router: HTTPRouter(policy: policy), limits: limits, logger: logger)
        try server.start(listeners)
        httpServer.withLock { $0 = server }
        let ports = listeners.map(\.port)
        let shown = zip(settings.listen, ports).map { address, port in
            address.unixPath == nil
                ? HTTPSettings.ListenAddress(host: address.host, port: port).description
                : address.description
        }
        logger.notice("HTTP API and page on \(tls == nil ? "http" : "https")://\(shown.joined(separator: ", "))")
    }

    /// At a reload: the `http_*` settings booksd started with (they apply at start only); a
    /// change is logged.
    func keepHTTPSettings(_ fresh: HTTPSettings) -> HTTPSettings {
        if fresh != configuration.http {
            logger.warning(
                "http_* settings changed: they take effect only after a restart (HTTP goes on as it started)")
        }
        return configuration.http
    }

    /// Stops the HTTP server (feeds end, waiting requests get 503).
    func stopHTTP() {
        httpServer.withLock { $0 }?.stop()
    }

    /// The text of a certificate, key or token file.
    static func readSecret(_ path: String) throws(HTTPServerError) -> String {
        do {
            return try ConfigurationFile.readText(path: path)
        } catch {
            throw .unreadable(path, "\(error)")
        }
    }
}
