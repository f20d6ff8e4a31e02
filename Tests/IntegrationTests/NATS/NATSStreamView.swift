import BooksClient
import BooksCore
import BooksNATS
import BooksProtocol
import FoundationEssentials

/// What a remote NATS client sees of a store: every message of its stream (read from the start
/// with an ordered consumer) and the books in its bucket. Blocking NATS calls run on a dedicated
/// thread (`NATSBooksClient.onThread`).
struct NATSStreamView {
    struct Message: Equatable {
        var streamSequence: UInt64
        var event: Event
        /// The message's `Nats-Msg-Id`.
        var messageID: String? = nil
    }

    var messages: [Message] = []

    /// Reads the whole stream of `store` on the server at `url`: up to its last message at the time
    /// of the call (waiting at most 10 s for it).
    static func read(url: String, store: String = "default") async throws -> NATSStreamView {
        let result: Result<NATSStreamView, NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                let connection = try connect(url)
                let jetStream = try connection.jetStream()
                let subject = "books.\(store).changes"
                var view = NATSStreamView()
                guard let last = try jetStream.lastMessage(stream: "books_\(store)_changes", subject: subject),
                    let lastSequence = last.streamSequence
                else { return view }
                let subscription = try jetStream.orderedSubscription(subject, from: .all)
                let decoder = MessageDecoder()
                while let message = try subscription.next(timeoutMilliseconds: 10_000) {
                    if case .event(let event)? = try? decoder.decode(message.data) {
                        view.messages.append(
                            Message(
                                streamSequence: message.streamSequence ?? 0, event: event,
                                messageID: message.messageID))
                    }
                    if (message.streamSequence ?? 0) >= lastSequence { break }
                }
                return view
            }
        }
        return try result.get()
    }

    /// The books of the bucket `books_<store>` (ids decoded from the keys, checked against the values).
    static func bucketBooks(url: String, store: String = "default") async throws -> [Book] {
        let result: Result<[Book], NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                let connection = try connect(url)
                let bucket = try connection.jetStream().keyValue("books_\(store)")
                var books: [Book] = []
                for key in try bucket.keys() {
                    guard let value = try bucket.get(key),
                        let book = try? JSONDecoder().decode(BucketValue.self, from: Data(value))
                    else { continue }
                    books.append(Book(id: book.id, name: book.name, author: book.author))
                }
                return books.sorted { $0.id < $1.id }
            }
        }
        return try result.get()
    }

    /// A connection to the server(s) at `url` (comma-separated).
    static func connect(_ url: String) throws(NATSError) -> NATSConnection {
        try NATSConnection.connect(NATSConnectOptions(urls: NATSConnectOptions.urls(from: url)))
    }

    struct BucketValue: Decodable {
        var id, name, author: String
        var version: UInt64
    }

    /// The change-set messages, as `(epoch, seq)`, in stream order.
    var changePositions: [String] {
        messages.filter { $0.event.event == .change }.map { "\($0.event.epoch):\($0.event.seq)" }
    }

    /// Gaps or repeats: for each epoch, the change seqs must rise by exactly one, starting right
    /// after that epoch's snapshot marker (if any). Returns a description of each violation.
    var continuityProblems: [String] {
        var problems: [String] = []
        var last: [String: UInt64] = [:]
        for message in messages {
            let event = message.event
            switch event.event {
            case .snapshot:
                if let previous = last[event.epoch], previous != event.seq {
                    problems.append("snapshot of \(event.epoch) at \(event.seq) after seq \(previous)")
                }
                last[event.epoch] = event.seq
            case .change:
                if let previous = last[event.epoch], event.seq != previous + 1 {
                    problems.append("\(event.epoch): seq \(event.seq) after \(previous)")
                } else if last[event.epoch] == nil {
                    problems.append("\(event.epoch): change \(event.seq) with no snapshot marker before it")
                }
                last[event.epoch] = event.seq
            default:
                problems.append("unexpected event \(event.event) at stream sequence \(message.streamSequence)")
            }
        }
        return problems
    }

    /// The books after applying every change set after the last snapshot marker to `base`.
    func applied(to base: [Book]) -> [Book] {
        var books = Dictionary(base.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        for message in messages where message.event.event == .change {
            for book in message.event.inserted ?? [] { books[book.id] = book }
            for update in message.event.updated ?? [] { books[update.new.id] = update.new }
            for book in message.event.deleted ?? [] { books[book.id] = nil }
        }
        return books.values.sorted { $0.id < $1.id }
    }
}
