import BooksNATS
import BooksPlatform
import BooksProtocol

/// The socket protocol's requests over NATS: each request is one NATS request to
/// `<prefix>.<store>.api`, answered by the booksd that owns the store (queue group `booksd`),
/// with the same replies, errors, versions and conflicts as over the Unix socket.
///
/// Every request carries the `Books-Actor` header (``ActorHeader``): who this process says it is
/// (``declaredActor``), which booksd records as the actor of its writes, marked `via` `nats`.
///
/// Each blocking NATS request runs on a `DedicatedThread` of its own, never in the cooperative pool.
public final class NATSBooksClient: BookRequests, Sendable {
    /// The NATS connection.
    public let connection: NATSConnection
    /// The api subject requests go to.
    public let subject: String
    /// How long a request waits for its reply.
    public let timeoutMilliseconds: Int64
    /// The prefix and store the subject names (to tell an unknown store from a stopped booksd).
    let names: (prefix: String, store: String)
    /// Who this client says it is on every request (the `Books-Actor` header).
    public let declaredActor: ChangeActor

    /// Connects to `options.urls` (no background retry: an unreachable server is an error).
    /// - Throws: `.nats` with the library's explanation.
    public init(
        options: NATSConnectOptions, prefix: String = "books", store: String = "default",
        timeoutMilliseconds: Int64 = 5000
    ) throws(BooksClientError) {
        do {
            connection = try NATSConnection.connect(options)
        } catch {
            throw .nats(error.description)
        }
        subject = NATSNaming.apiSubject(prefix: prefix, store: store)
        names = (prefix, store)
        self.timeoutMilliseconds = timeoutMilliseconds
        declaredActor = Self.declaredActor(options: options)
    }

    /// A client of `store` under `prefix` on an open `connection` (no new connection is made),
    /// declaring itself as `declaredActor`.
    init(
        connection: NATSConnection, prefix: String, store: String, timeoutMilliseconds: Int64,
        declaredActor: ChangeActor
    ) {
        self.connection = connection
        subject = NATSNaming.apiSubject(prefix: prefix, store: store)
        names = (prefix, store)
        self.timeoutMilliseconds = timeoutMilliseconds
        self.declaredActor = declaredActor
    }

    /// Sends one request and waits for its reply (see `BookRequests`).
    public func call(
        _ op: Request.Operation, _ configure: (inout Request) -> Void = { _ in }
    ) async throws(BooksClientError) -> ReplyResult {
        var request = Request(id: "1", op: op)
        configure(&request)
        let line: [UInt8]
        do {
            line = try RequestEncoder.encode(request)
        } catch {
            throw .protocolError(ProtocolError(.badRequest, "cannot encode the request: \(error)"))
        }
        let (connection, subject, timeout) = (self.connection, self.subject, timeoutMilliseconds)
        let headers = [(name: ActorHeader.name, value: ActorHeader.value(declaring: declaredActor))]
        let answer: Result<NATSMessage, NATSError> = await Self.onThread {
            Result { () throws(NATSError) in
                try connection.request(line, to: subject, headers: headers, timeoutMilliseconds: timeout)
            }
        }
        let message: NATSMessage
        switch answer {
        case .success(let reply): message = reply
        case .failure(let error) where error.isNoResponders:
            let (prefix, store) = names
            let lookup: Result<Void, BooksClientError> = await Self.onThread {
                Result { () throws(BooksClientError) in
                    try NATSStoreDirectory.checkKnown(connection, prefix: prefix, store: store)
                }
            }
            try lookup.get()
            throw .nats("no booksd answers on \(subject) (is it running with nats_url set?)")
        case .failure(let error): throw .nats(error.description)
        }
        let decoded: DaemonMessage
        do {
            decoded = try MessageDecoder().decode(message.data)
        } catch {
            throw .protocolError(ProtocolError(.badRequest, "unreadable reply on \(subject): \(error)"))
        }
        guard case .reply(let reply) = decoded else {
            throw .protocolError(ProtocolError(.badRequest, "an event instead of a reply on \(subject)"))
        }
        if let error = reply.error, !reply.ok { throw .daemon(error) }
        return reply.result ?? ReplyResult()
    }

    /// Nothing to do: the connection closes when the client is released.
    public func close() {}

    /// `booksd via <subject>` (NATS has no hello).
    public var server: String? { "booksd via NATS \(subject)" }

    /// Runs a blocking `body` on a dedicated thread (not in the cooperative pool) and returns its result.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            do {
                _ = try DedicatedThread.start(name: "books-nats-req") { continuation.resume(returning: body()) }
            } catch {
                continuation.resume(returning: body())  // no thread to be had: block here rather than fail
            }
        }
    }
}
