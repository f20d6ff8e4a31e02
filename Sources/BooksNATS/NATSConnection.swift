import CNats
import Glibc

/// One connection to a NATS server or cluster (the C library's `natsConnection`), reconnecting on
/// its own forever.
///
/// Threads: every method may be called from any thread; the C library serializes internally.
/// Blocking methods (`request`, `flush`, and everything in `JetStream`) wait on the network and
/// belong on a dedicated thread, never in the cooperative pool. Event and message handlers run on
/// the library's own threads and must not block.
///
/// `@unchecked Sendable` is safe: the only stored state is the pointer to the C connection, set
/// once in `init` and destroyed only in `deinit` (when no other reference exists); the library
/// documents `natsConnection` as safe to use from several threads at once.
public final class NATSConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The options it was opened with (for `bulkConnection`).
    public let options: NATSConnectOptions

    private init(pointer: OpaquePointer, options: NATSConnectOptions) {
        self.pointer = pointer
        self.options = options
    }

    deinit {
        natsConnection_Close(pointer)
        natsConnection_Destroy(pointer)
    }

    /// Connects with `options`. With `retryInBackground`, an unreachable server is not an error:
    /// the connection is returned unconnected and keeps trying (`onEvent(.connected)` reports
    /// success) — but a server that refuses the credentials is (`isAuthorizationFailure`: trying
    /// again cannot help); otherwise a failed first attempt throws.
    ///
    /// `onEvent` is called on a library thread for every state change; it must not block.
    public static func connect(
        _ options: NATSConnectOptions, retryInBackground: Bool = false,
        onEvent: @escaping @Sendable (NATSConnectionEvent) -> Void = { _ in }
    ) throws(NATSError) -> NATSConnection {
        let servers = options.urls.joined(separator: ",")
        guard !options.urls.isEmpty else {
            throw NATSError(context: "connecting to NATS", text: "no server URL given")
        }
        if retryInBackground {
            // One plain attempt first: a refusal of the credentials is final and must be said.
            do throws(NATSError) {
                return try connect(options, retryInBackground: false, onEvent: onEvent)
            } catch  where error.isAuthorizationFailure {
                throw error
            } catch {}
        }
        var opts: OpaquePointer?
        try check(natsOptions_Create(&opts), "creating NATS options")
        defer { natsOptions_Destroy(opts) }
        try apply(options, to: opts)
        // The event box lives until the connection reports `closed`, its last callback.
        let box = Unmanaged.passRetained(EventBox(onEvent)).toOpaque()
        let connected: natsConnectionHandler = { _, raw in EventBox.from(raw).handler(.connected) }
        try check(
            natsOptions_SetDisconnectedCB(opts, { _, raw in EventBox.from(raw).handler(.disconnected) }, box),
            "setting the disconnect handler")
        try check(
            natsOptions_SetReconnectedCB(opts, { _, raw in EventBox.from(raw).handler(.reconnected) }, box),
            "setting the reconnect handler")
        try check(
            natsOptions_SetClosedCB(
                opts,
                { _, raw in
                    let events = Unmanaged<EventBox>.fromOpaque(raw!)
                    events.takeUnretainedValue().handler(.closed)
                    events.release()
                }, box), "setting the close handler")
        if retryInBackground {
            try check(natsOptions_SetRetryOnFailedConnect(opts, true, connected, box), "setting connect retries")
        }
        var connection: OpaquePointer?
        let status = natsConnection_Connect(&connection, opts)
        if status == NATS_OK || (retryInBackground && status == NATS_NOT_YET_CONNECTED), let connection {
            return NATSConnection(pointer: connection, options: options)
        }
        Unmanaged<EventBox>.fromOpaque(box).release()  // no connection, so no closed callback
        throw NATSError("connecting to NATS at \(servers)", status)
    }

    private static func apply(_ options: NATSConnectOptions, to opts: OpaquePointer?) throws(NATSError) {
        var urls = options.urls.map { strdup($0) }
        defer { for url in urls { free(url) } }
        let status = urls.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                natsOptions_SetServers(opts, $0, Int32(buffer.count))
            }
        }
        try check(status, "setting NATS server URLs \(options.urls)")
        try check(natsOptions_SetName(opts, options.name), "setting the connection name")
        try check(natsOptions_SetTimeout(opts, options.connectTimeoutMilliseconds), "setting the connect timeout")
        try check(natsOptions_SetMaxReconnect(opts, -1), "setting unlimited reconnects")
        try check(natsOptions_SetReconnectWait(opts, options.reconnectWaitMilliseconds), "setting the reconnect wait")
        try check(natsOptions_SetPingInterval(opts, options.pingIntervalMilliseconds), "setting the ping interval")
        try check(natsOptions_SetMaxPingsOut(opts, 2), "setting the ping limit")
        if options.sendImmediately { try check(natsOptions_SetSendAsap(opts, true), "setting send-at-once") }
        if options.globalMessageDelivery {
            try check(natsOptions_UseGlobalMessageDelivery(opts, true), "using the shared delivery threads")
        }
        if let file = options.credentialsFile {
            try check(natsOptions_SetUserCredentialsFromFiles(opts, file, nil), "reading NATS credentials \(file)")
        }
        if let user = options.user {
            try check(natsOptions_SetUserInfo(opts, user, options.password), "setting NATS user \(user)")
        }
        if let token = options.token { try check(natsOptions_SetToken(opts, token), "setting the NATS token") }
        if let ca = options.tlsCAFile {
            try check(natsOptions_SetSecure(opts, true), "turning TLS on")
            try check(natsOptions_LoadCATrustedCertificates(opts, ca), "loading TLS CA file \(ca)")
        }
        if let certificate = options.tlsCertificateFile, let key = options.tlsKeyFile {
            try check(natsOptions_SetSecure(opts, true), "turning TLS on")
            try check(
                natsOptions_LoadCertificatesChain(opts, certificate, key),
                "loading TLS certificate \(certificate) and key \(key)")
        }
    }

    /// Sets how many library threads deliver messages for connections with
    /// `globalMessageDelivery` (process-wide; default 1).
    public static func setSharedDeliveryThreads(_ count: Int) throws(NATSError) {
        try check(nats_SetMessageDeliveryPoolSize(Int32(count)), "sizing the shared delivery threads")
    }

    /// True while connected (not while reconnecting or closed).
    public var isConnected: Bool { natsConnection_Status(pointer) == NATS_CONN_STATUS_CONNECTED }

    /// The largest message the server accepts (its `max_payload`), in bytes; 0 when not connected.
    public var maxPayload: Int { Int(natsConnection_GetMaxPayload(pointer)) }

    /// The URL of the server currently connected to, or nil.
    public var connectedURL: String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard natsConnection_GetConnectedUrl(pointer, &buffer, buffer.count) == NATS_OK, buffer[0] != 0 else {
            return nil
        }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Publishes `data` on `subject` (core NATS, fire and forget; buffered while reconnecting).
    public func publish(_ data: [UInt8], to subject: String) throws(NATSError) {
        try check(natsConnection_Publish(pointer, subject, data, Int32(data.count)), "publishing to \(subject)")
    }

    /// Sends a request with `headers` (name, value; none by default) and waits up to
    /// `timeoutMilliseconds` for its reply. Blocks.
    public func request(
        _ data: [UInt8], to subject: String, headers: [(name: String, value: String)] = [], timeoutMilliseconds: Int64
    ) throws(NATSError) -> NATSMessage {
        var reply: OpaquePointer?
        let status: natsStatus
        if headers.isEmpty {
            status = natsConnection_Request(&reply, pointer, subject, data, Int32(data.count), timeoutMilliseconds)
        } else {
            var message: OpaquePointer?
            try check(natsMsg_Create(&message, subject, nil, data, Int32(data.count)), "creating a request")
            defer { natsMsg_Destroy(message) }
            for header in headers {
                try check(natsMsgHeader_Set(message, header.name, header.value), "setting header \(header.name)")
            }
            status = natsConnection_RequestMsg(&reply, pointer, message, timeoutMilliseconds)
        }
        if status == NATS_TIMEOUT, let refusal = lastPermissionViolation {
            throw NATSError(
                context: "request to \(subject)", status: Int32(bitPattern: status.rawValue),
                text: "no reply, and the server refused this user: \(refusal)")
        }
        try check(status, "request to \(subject)")
        defer { natsMsg_Destroy(reply) }
        return NATSMessage(copying: reply!)
    }

    /// The server's last "Permissions Violation" on this connection, if any (a refused publish is
    /// reported asynchronously: a request then only times out).
    public var lastPermissionViolation: String? {
        var text: UnsafePointer<CChar>?
        guard natsConnection_GetLastError(pointer, &text) == NATS_NOT_PERMITTED, let text else { return nil }
        return String(cString: text)
    }

    /// The library's last error on this connection (e.g. an authorization violation), or nil.
    public var lastErrorText: String? {
        var text: UnsafePointer<CChar>?
        guard natsConnection_GetLastError(pointer, &text) != NATS_OK, let text else { return nil }
        return String(cString: text)
    }

    /// Waits until the server processed everything sent so far. Blocks.
    public func flush(timeoutMilliseconds: Int64) throws(NATSError) {
        try check(natsConnection_FlushTimeout(pointer, timeoutMilliseconds), "flushing the NATS connection")
    }

    /// Subscribes to `subject` in queue group `queue`: each message goes to one member of the
    /// group. `handler` runs on a library thread, one message at a time, and must not block.
    public func queueSubscribe(
        _ subject: String, queue: String, handler: @escaping @Sendable (NATSMessage) -> Void
    ) throws(NATSError) -> NATSSubscription {
        try subscribe(subject, queue: queue, handler: handler)
    }

    /// Subscribes to `subject` (core NATS: every message published from now on, no replay).
    /// `handler` runs on a library thread, one message at a time, and must not block.
    public func subscribe(
        _ subject: String, handler: @escaping @Sendable (NATSMessage) -> Void
    ) throws(NATSError) -> NATSSubscription {
        try subscribe(subject, queue: nil, handler: handler)
    }

    private func subscribe(
        _ subject: String, queue: String?, handler: @escaping @Sendable (NATSMessage) -> Void
    ) throws(NATSError) -> NATSSubscription {
        let box = Unmanaged.passRetained(MessageBox(handler))
        var subscription: OpaquePointer?
        let deliver: natsMsgHandler = { _, _, message, raw in
            guard let message else { return }
            let copy = NATSMessage(copying: message)
            natsMsg_Destroy(message)
            Unmanaged<MessageBox>.fromOpaque(raw!).takeUnretainedValue().handler(copy)
        }
        let status =
            if let queue {
                natsConnection_QueueSubscribe(&subscription, pointer, subject, queue, deliver, box.toOpaque())
            } else {
                natsConnection_Subscribe(&subscription, pointer, subject, deliver, box.toOpaque())
            }
        guard status == NATS_OK, let subscription else {
            box.release()
            throw NATSError("subscribing to \(subject)" + (queue.map { " (queue \($0))" } ?? ""), status)
        }
        return NATSSubscription(pointer: subscription, box: box)
    }

    /// A JetStream context on this connection; JetStream API calls wait up to `timeoutMilliseconds`.
    public func jetStream(timeoutMilliseconds: Int64 = 5000) throws(NATSError) -> JetStream {
        var options = jsOptions()
        try check(jsOptions_Init(&options), "initializing JetStream options")
        options.Wait = timeoutMilliseconds
        var context: OpaquePointer?
        try check(natsConnection_JetStream(&context, pointer, &options), "opening a JetStream context")
        return JetStream(pointer: context!, connection: self)
    }
}

/// Carries an event handler across the C library's `void *` closure.
final class EventBox: Sendable {
    let handler: @Sendable (NATSConnectionEvent) -> Void
    init(_ handler: @escaping @Sendable (NATSConnectionEvent) -> Void) { self.handler = handler }
    static func from(_ raw: UnsafeMutableRawPointer?) -> EventBox {
        Unmanaged<EventBox>.fromOpaque(raw!).takeUnretainedValue()
    }
}

/// Carries a message handler across the C library's `void *` closure.
final class MessageBox: Sendable {
    let handler: @Sendable (NATSMessage) -> Void
    init(_ handler: @escaping @Sendable (NATSMessage) -> Void) { self.handler = handler }
}

extension NATSConnection {
    /// A second connection to the same servers for one long bulk read (a bucket of a million
    /// keys), pinged every 30 s: nats-server creates the read's consumer inside the requesting
    /// connection's read loop, which can take seconds at that size without answering pings, so
    /// this connection (not the caller's, whose pings keep its lease and feed alive) bears it.
    /// Close it by dropping it.
    public func bulkConnection() throws(NATSError) -> NATSConnection {
        var bulk = options
        bulk.name += "-bulk"
        bulk.pingIntervalMilliseconds = 30_000
        return try NATSConnection.connect(bulk)
    }
}
