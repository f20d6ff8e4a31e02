import BooksCore
import BooksNATS
import BooksPlatform
import BooksProtocol
import Dispatch
import Glibc
import Synchronization

/// Answers the socket protocol's requests sent over NATS to `<prefix>.<store>.api` (queue group
/// `booksd`): one JSON request line per message, one reply line per request, to its reply subject.
///
/// Requests go through the engine exactly as the socket server's do (`BookEngine.handle`), so
/// ops, fields, errors, versions and conflicts are the same. A request's `Books-Actor` header
/// (``ActorHeader``) becomes the actor of its writes, marked `via` `nats`: declared by the client,
/// not vouched for like a socket peer's kernel credentials. A NATS request has no peer uid:
/// who may send what is NATS's authorization (config/nats-server.conf.example), and booksd treats
/// a request as coming from its own user — a writer — unless `nats_allow_writes` is off.
/// `hello`, `subscribe` and `unsubscribe` are refused: the feed is the stream.
///
/// Threads: messages arrive on a library thread, which only decodes and hands over (the engine's
/// `handle` never blocks); replies are published from the serial queue `booksd.nats.replies`, so
/// a slow NATS never holds the engine's queue.
public final class NATSRequestResponder: Sendable {
    let connection: NATSConnection
    let naming: NATSNaming
    let allowWrites: Bool
    let maxRequestBytes: Int
    let logger: Logger
    let replies = DispatchQueue(label: "booksd.nats.replies")
    let pending = Locked<[UInt64: String]>([:])
    let nextID = Atomic<UInt64>(1)
    let complaints = Locked(LogRateLimiter())
    let subscription = Locked<NATSSubscription?>(nil)
    let engine = Locked<BookEngine?>(nil)
    /// Set by `stop()`: the responder never subscribes again.
    let stopped = Atomic<Bool>(false)

    /// A responder on `connection`; nothing is answered until `start(engine:)`.
    public init(connection: NATSConnection, naming: NATSNaming, allowWrites: Bool, maxRequestBytes: Int, logger: Logger)
    {
        self.connection = connection
        self.naming = naming
        self.allowWrites = allowWrites
        self.maxRequestBytes = maxRequestBytes
        self.logger = logger
    }

    /// Hands every request to `engine` while active (`setActive(true)`: while this booksd owns
    /// the store).
    public func start(engine: BookEngine) {
        self.engine.withLock { $0 = engine }
    }

    /// Subscribes to the api subject (the owner of the store) or unsubscribes (it lost the store,
    /// so another booksd's answers are the current ones). Blocks briefly (a flush).
    public func setActive(_ active: Bool) {
        guard let engine = engine.withLock({ $0 }) else { return }
        subscription.withLock { $0 }?.cancel()
        subscription.withLock { $0 = nil }
        guard active, !stopped.load(ordering: .acquiring) else { return }
        do throws(NATSError) {
            let made = try connection.queueSubscribe(naming.apiSubject, queue: NATSNaming.apiQueue) { [self] message in
                receive(message, engine: engine)
            }
            subscription.withLock { $0 = made }
            if stopped.load(ordering: .acquiring) { stop() }  // stopped meanwhile
            // Wait (briefly) until the server has the subscription.
            try? connection.flush(timeoutMilliseconds: 1000)
        } catch {
            logger.error("NATS: \(error); requests over NATS are not answered")
        }
    }

    /// Stops taking requests for good (at shutdown): unsubscribes, and no ownership change
    /// subscribes again. A request taken before is still answered (see `finishReplies()`).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        subscription.withLock { $0 }?.cancel()
        subscription.withLock { $0 = nil }
    }

    /// Returns once every reply handed over so far went out to the server (flushed, waiting at
    /// most a second for it).
    public func finishReplies() {
        replies.sync {}
        try? connection.flush(timeoutMilliseconds: 1000)
    }

    /// Publishes `reply` to the reply subject of the request `connection` stands for.
    public func send(_ reply: Reply, to connection: ReplyTarget) {
        guard let subject = pending.withLock({ $0.removeValue(forKey: connection.number) }) else { return }
        respond(MessageEncoder.encode(reply), to: subject)
    }

    /// Answers the request `connection` stands for with a streamed list reply, encoded whole:
    /// a NATS reply is one message (a reply is never split into pages). A reply larger than the
    /// server's `max_payload` is not built past it (memory stays bounded whatever the list): the
    /// request gets `too-large`, to be asked again with `limit`/`offset` (`NATSBooksClient`'s
    /// paged `list` does that: one request per page, halving a page that is too large).
    public func send(_ stream: BookStreamEncoder, to connection: ReplyTarget) {
        guard let subject = pending.withLock({ $0.removeValue(forKey: connection.number) }) else { return }
        let limit = self.connection.maxPayload > 0 ? self.connection.maxPayload : 1 << 20
        var stream = stream
        var bytes: [UInt8] = []
        while !stream.isFinished {
            bytes.append(contentsOf: stream.nextChunk(targetBytes: 1 << 16))
            guard bytes.count <= limit else {
                let id: String? = if case .listReply(let id) = stream.message { id } else { nil }
                let error = ProtocolError(
                    .tooLarge,
                    "the reply is larger than the NATS server's max_payload (\(limit) bytes); "
                        + "ask for fewer books with limit and offset")
                return respond(MessageEncoder.encode(.failure(id, error)), to: subject)
            }
        }
        respond(bytes, to: subject)
    }

    private func receive(_ message: NATSMessage, engine: BookEngine) {
        guard let replySubject = message.reply else {
            complain("a message on \(naming.apiSubject) without a reply subject was ignored (use a NATS request)")
            return
        }
        var line = message.data
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        guard line.count <= maxRequestBytes else {
            let error = ProtocolError(.tooLarge, "request larger than max_request_bytes (\(maxRequestBytes))")
            return respond(MessageEncoder.encode(.failure(nil, error)), to: replySubject)
        }
        var request: Request
        do {
            request = try RequestDecoder().decode(line)
            request.paged = nil  // one reply message: a list is answered whole (streamed into it)
        } catch {
            complain("refused a request on \(naming.apiSubject): \(error.error.message)")
            return respond(MessageEncoder.encode(.failure(error.id, error.error)), to: replySubject)
        }
        if let refusal = refusal(of: request) {
            return respond(MessageEncoder.encode(.failure(request.id, refusal)), to: replySubject)
        }
        let id = ReplyTarget(.nats, nextID.add(1, ordering: .relaxed).oldValue)
        pending.withLock { $0[id.number] = replySubject }
        let peer = PeerCredentials(pid: getpid(), uid: geteuid(), gid: getegid(), declared: declaredActor(of: message))
        engine.handle(request, from: id, peer: peer)
    }

    /// Who the requester says it is (its `Books-Actor` header), or nil: a header that is too long or
    /// malformed is ignored with a (rate-limited) log line, never an error to the writer.
    func declaredActor(of message: NATSMessage) -> ChangeActor? {
        guard let value = message.booksActor else { return nil }
        do throws(ActorHeader.Refusal) {
            return try ActorHeader.actor(from: value)
        } catch .tooLong(let count) {
            complain("ignored a \(ActorHeader.name) header of \(count) bytes (at most \(ActorHeader.maxBytes))")
        } catch {
            complain("ignored a malformed \(ActorHeader.name) header (not a JSON object of actor members)")
        }
        return nil
    }

    /// Why `request` is not taken over NATS, or nil.
    func refusal(of request: Request) -> ProtocolError? {
        switch request.op {
        case .hello:
            return ProtocolError(.invalidArgument, "no hello over NATS: send requests directly")
        case .subscribe, .unsubscribe:
            return ProtocolError(
                .invalidArgument, "subscribe over NATS by reading the stream subject \(naming.changesSubject)")
        case .insert, .update, .delete, .save, .resolve, .undo:
            return allowWrites
                ? nil
                : ProtocolError(.permissionDenied, "this booksd takes no writes over NATS (nats_allow_writes = no)")
        default:
            return nil
        }
    }

    private func respond(_ line: [UInt8], to subject: String) {
        let connection = self.connection
        replies.async { try? connection.publish(line, to: subject) }
    }

    private func complain(_ message: String) {
        if let line = complaints.withLock({ $0.admit(message, key: "nats-api", now: .now) }) {
            logger.warning(line)
        }
    }
}
