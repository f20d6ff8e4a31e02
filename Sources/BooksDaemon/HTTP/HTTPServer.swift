import BooksHTTP
import BooksPlatform
import BooksProtocol
import CMicroHTTPD
import Glibc

/// The HTTP API's I/O shell: one GNU libmicrohttpd daemon per listen address, each on its own
/// polling thread (epoll, inside the library; never the Swift cooperative pool). Its callbacks
/// only parse what the library hands over, ask the pure `HTTPRouter`, and forward to the
/// `HTTPGateway`; a request waiting for its engine, and a change feed with nothing to send, is
/// suspended (`MHD_suspend_connection`) and resumed when the answer or the next event comes.
///
/// Limits (request size, connections in all and per client address, idle timeout, header
/// memory) are the library's options, set from booksd's settings.
public final class HTTPServer: Sendable {
    let gateway: HTTPGateway
    let router: HTTPRouter
    let limits: Limits
    let daemons = Locked<[MHDDaemonHandle]>([])
    let logger: Logger

    /// The library's limits.
    struct Limits: Sendable {
        var maxConnections: Int
        var maxConnectionsPerClient: Int
        var timeoutSeconds: Int
        var maxHeaderBytes: Int
        var tls: (certificate: String, key: String)?
    }

    init(gateway: HTTPGateway, router: HTTPRouter, limits: Limits, logger: Logger) {
        self.gateway = gateway
        self.router = router
        self.limits = limits
        self.logger = logger
    }

    /// Binds `addresses` (listening sockets, before the server exists: the policy needs the ports);
    /// a `unix:/path` address as the daemon's own socket is (a stale socket file replaced, never a
    /// live one; permissions `unixMode`).
    /// - Throws: `HTTPServerError.cannotListen` (every socket bound so far is closed again).
    static func bind(
        _ addresses: [HTTPSettings.ListenAddress], unixMode: mode_t
    ) throws(HTTPServerError) -> [MHDListener] {
        var bound: [MHDListener] = []
        func fail(_ address: HTTPSettings.ListenAddress, _ reason: String) -> HTTPServerError {
            for listener in bound { listener.close() }
            return .cannotListen(address.description, reason)
        }
        for address in addresses {
            if let path = address.unixPath {
                do {
                    let fd = try UnixListener.bind(path: path, mode: unixMode, backlog: 128)
                    bound.append(MHDListener(fd: fd, port: -1, unixPath: path))
                } catch {
                    throw fail(address, "\(error)")
                }
                continue
            }
            let fd = HTTPListenSocket.open(host: address.host, port: address.port)
            guard fd >= 0 else { throw fail(address, String(cString: strerror(-fd))) }
            bound.append(MHDListener(fd: fd, port: HTTPListenSocket.port(of: fd), unixPath: nil))
        }
        return bound
    }

    /// Starts a daemon (its own polling thread) on each of `listeners`.
    /// - Throws: `HTTPServerError.libraryRefused` (e.g. for a bad certificate or key).
    func start(_ listeners: [MHDListener]) throws(HTTPServerError) {
        for listener in listeners {
            let me = Unmanaged.passUnretained(self).toOpaque()
            let started = withOptions { options in
                booksd_mhd_start(listener.fd, HTTPServer.accessHandler, me, HTTPServer.completedHandler, me, options)
            }
            guard let daemon = started else {
                for other in listeners { other.close() }
                throw .libraryRefused(listener.unixPath.map { "unix:\($0)" } ?? "port \(listener.port)")
            }
            daemons.withLock { $0.append(MHDDaemonHandle(pointer: daemon, listener: listener)) }
        }
    }

    private func withOptions(_ body: (UnsafePointer<booksd_mhd_options>) -> OpaquePointer?) -> OpaquePointer? {
        let certificate = limits.tls.map { strdup($0.certificate) } ?? nil
        let key = limits.tls.map { strdup($0.key) } ?? nil
        defer {
            free(certificate)
            free(key)
        }
        var options = booksd_mhd_options(
            connection_limit: UInt32(limits.maxConnections),
            per_ip_connection_limit: UInt32(limits.maxConnectionsPerClient),
            connection_timeout_seconds: UInt32(limits.timeoutSeconds), connection_memory_limit: limits.maxHeaderBytes,
            tls_cert_pem: certificate.map { UnsafePointer($0) }, tls_key_pem: key.map { UnsafePointer($0) })
        return body(&options)
    }

    /// Ends every feed and waiting request, then stops the daemons (their threads are joined).
    func stop() {
        gateway.shutDown()
        usleep(100_000)  // the resumed connections write their last bytes
        for daemon in daemons.withLock({ list in
            defer { list = [] }
            return list
        }) {
            MHD_stop_daemon(daemon.pointer)
            daemon.listener.close()
        }
    }

    // MARK: The library's callbacks (on a daemon's thread)

    static let accessHandler: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, upload, uploadSize, context in
        guard let cls, let connection, let context else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        if let existing = context.pointee {
            let exchange = Unmanaged<HTTPExchange>.fromOpaque(existing).takeUnretainedValue()
            return server.resume(exchange, connection: connection, upload: upload, uploadSize: uploadSize)
        }
        let head = HTTPRequestParts.head(
            connection, method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/")
        return server.begin(head, connection: connection, context: context)
    }

    static let completedHandler: MHD_RequestCompletedCallback = { cls, _, context, _ in
        guard let cls, let context, let pointer = context.pointee else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(pointer)
        exchange.takeUnretainedValue().complete()
        server.gateway.finished(exchange.takeUnretainedValue())
        exchange.release()
        context.pointee = nil
    }

    /// The first call for a request: route it; answer at once, wait for its body, or forward it.
    private func begin(
        _ head: HTTPRequestHead, connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // Answered on the next call, once the whole request was read (a response queued before
        // that makes the library close the connection instead of keeping it alive); a refused
        // request with a body is answered at once (its body is not read).
        let phase: HTTPExchange.Phase
        switch router.decide(head) {
        case .respond(let response) where head.method != "GET" && head.method != "HEAD":
            return HTTPRequestParts.queue(response, on: connection)
        case .respond(let response):
            phase = .answered(.response(response))
        case .route(.page):
            phase = .answered(.response(WebPage.response))  // the library sends no body to HEAD
        case .route(.stores):
            phase = .answered(.response(.json(200, encoding: ["stores": gateway.stores()])))
        case .route(let route):
            phase = .receiving(route, body: [], tooLarge: false)
        }
        let exchange = HTTPExchange(
            id: gateway.makeID(), connection: MHDConnectionHandle(pointer: connection), phase: phase)
        context.pointee = Unmanaged.passRetained(exchange).toOpaque()
        return MHD_Result.YES
    }

    /// A later call: more body, the end of the body, or the connection resumed with an answer.
    private func resume(
        _ exchange: HTTPExchange, connection: OpaquePointer, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>?
    ) -> MHD_Result {
        if let uploadSize, uploadSize.pointee > 0 {
            if let upload {
                exchange.receive(
                    UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee), limit: router.policy.maxBodyBytes)
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let (route, body, tooLarge) = exchange.received {
            if tooLarge {
                return HTTPRequestParts.queue(
                    .error(413, code: "too-large", message: "the body is larger than max_request_bytes"), on: connection
                )
            }
            forward(exchange, route: route, body: body)
            return MHD_Result.YES
        }
        guard let answer = exchange.takeAnswer() else { return MHD_Result.YES }  // still waiting
        switch answer {
        case .response(let response):
            return HTTPRequestParts.queue(response, on: connection)
        case .list:
            return HTTPRequestParts.queueStream(
                exchange, on: connection, contentType: "application/json", reader: HTTPRequestParts.listReader)
        case .events:
            return HTTPRequestParts.queueStream(
                exchange, on: connection, contentType: "text/event-stream", reader: HTTPRequestParts.eventReader)
        }
    }

    /// Builds the protocol request, suspends the connection and hands the request to its engine.
    private func forward(_ exchange: HTTPExchange, route: HTTPRoute, body: [UInt8]) {
        let request: Request
        if case .storesChanges(let query) = route {
            exchange.suspend(waitingFor: route)
            return gateway.forwardStores(query, exchange: exchange)
        }
        if case .changes(let feed) = route {
            request = Request(id: "h", op: .subscribe, resume: feed.resume, snapshot: false, store: feed.store)
        } else {
            switch HTTPRequestBuilder.request(for: route, body: body, id: "h") {
            case .failure(let response):
                exchange.suspend(waitingFor: route)
                exchange.answer(.response(response))
                return
            case .success(let built): request = built
            }
        }
        exchange.suspend(waitingFor: route)
        gateway.forward(request, store: route.store ?? "", exchange: exchange, route: route)
    }
}

/// A bound listening socket and its port (-1 for a Unix socket, bound at `unixPath`).
struct MHDListener: Sendable {
    let fd: Int32
    let port: Int
    let unixPath: String?

    /// Closes the socket (a Unix socket's file is removed).
    func close() {
        _ = Glibc.close(fd)
        if let unixPath { _ = unlink(unixPath) }
    }
}

/// A libmicrohttpd daemon and its listening socket.
///
/// `@unchecked Sendable` is safe: the pointer is only used by `HTTPServer.stop`, once, after it
/// was taken out of the list under its lock.
struct MHDDaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    let listener: MHDListener
}

/// Why the HTTP server did not start.
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    case cannotListen(String, String)
    case libraryRefused(String)
    case unreadable(String, String)
    case settings([String])

    public var description: String {
        switch self {
        case .cannotListen(let address, let reason): "cannot listen on \(address) for HTTP: \(reason)"
        case .libraryRefused(let address): "libmicrohttpd refused to serve \(address) (bad TLS certificate or key?)"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .settings(let problems): problems.joined(separator: "; ")
        }
    }
}
