import BooksCore
import BooksProtocol

/// Named stores (protocol version 2): the list of stores, a handle scoped to one store, and a
/// change feed over several stores.
extension BooksClient {
    /// Every store the daemon serves, sorted by name (path, format, state, book count, bad lines,
    /// epoch, seq, and the oldest change set kept with its time). A version-1 daemon has one, answered as `status` describes it.
    public func stores() async throws(BooksClientError) -> [StoreInfo] {
        guard protocolVersion >= ProtocolVersion.stores else {
            let status = try await self.status()
            return [
                StoreInfo(
                    name: "default", path: status.file, format: status.format, state: status.fileState,
                    problem: status.fileProblem, bookCount: status.bookCount, badLines: status.badLines.count,
                    epoch: status.epoch, seq: status.seq, historyOldestSeq: status.historyOldestSeq,
                    historyOldestTime: status.historyOldestTime)
            ]
        }
        return try await call(.stores) { _ in }.stores ?? []
    }

    /// The requests of `BookRequests` (list, get, insert, update, delete, status, ping) scoped to
    /// the store `name`, over this connection. Needs a version-2 daemon for any name but the one
    /// it serves; an unknown name fails with `.daemon` code `unknown-store`.
    public func store(_ name: String) -> StoreClient {
        StoreClient(client: self, store: name)
    }

    /// A change feed over several stores: `stores` names them, `["*"]` follows every store, also
    /// those added later. Each item names its store; `resume` holds a resume point per store
    /// (stores without one start with a snapshot, or, with `snapshot: false`, with `.subscribed`).
    /// Iteration throws `.daemon` (`unknown-store`, …) when the subscribe fails; otherwise as
    /// `changes(filter:from:snapshot:buffer:)` (buffered per `buffer`). Needs a version-2 daemon.
    public func changes(
        stores: [String], filter: BookFilter = .all, from resume: [String: ResumePoint] = [:],
        snapshot: Bool = true, buffer: FeedBufferPolicy = .default
    ) -> BooksFeed<StoreFeedItem> {
        let connection = self.connection
        let (feed, producer): (BooksFeed<StoreFeedItem>, _) = unsubscribingFeed(buffer: buffer, stores: ["*"])
        var sink = SocketConnection.EventSink(
            deliver: { producer.yield(.item(store: "", $0)) }, finish: { producer.finish($0) })
        sink.deliverStore = { producer.yield($0) }
        do {
            try connection.installSink(sink)
        } catch {
            producer.finish(error)
            return feed
        }
        let request = Request(
            id: makeID(), op: .subscribe, filter: filter.isEmpty ? nil : filter, paged: true,
            snapshot: snapshot ? nil : false, stores: stores, resumes: resume.isEmpty ? nil : resume)
        connection.start(request) { result in  // written now: later writes come after it
            if case .failure(let error) = result { connection.removeSink(finishing: error) }
        }
        return feed
    }
}

/// A handle on one store of a daemon: every request it sends names the store. Cheap to make;
/// shares the `BooksClient`'s connection (keep the client alive while using it).
public struct StoreClient: BookRequests {
    /// The connection.
    public let client: BooksClient
    /// The store every request names.
    public let store: String

    /// The daemon's name and version.
    public var server: String? { client.server }

    /// Sends `op` to this store.
    public func call(
        _ op: Request.Operation, _ configure: (inout Request) -> Void
    ) async throws(BooksClientError) -> ReplyResult {
        try await client.call(op) {
            $0.store = store
            configure(&$0)
        }
    }

    /// The books of this store matching `query`, a page at a time (see `BooksClient.list(_:onPage:)`).
    public func list(
        _ query: BookQuery, onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        try await client.list(query, store: store, onPage: onPage)
    }

    /// This store's change feed (see `BooksClient.changes(filter:from:snapshot:buffer:)`); it ends
    /// with `.daemon` code `unknown-store` when the store is removed.
    public func changes(
        filter: BookFilter = .all, from resume: ResumePoint? = nil, snapshot: Bool = true,
        buffer: FeedBufferPolicy = .default
    ) -> BooksFeed<FeedItem> {
        let connection = client.connection
        let unsubscribeID = client.makeID()
        let store = self.store
        let (feed, producer) = BooksFeed<FeedItem>.make(policy: buffer) {
            connection.removeSink(finishing: nil)
            connection.sendAndForget(Request(id: unsubscribeID, op: .unsubscribe, store: store))
        }
        client.subscribe(
            filter: filter, from: resume, snapshot: snapshot, store: store, sink: SocketConnection.EventSink(producer))
        return feed
    }

    /// Closes the client's connection.
    public func close() { client.close() }
}
