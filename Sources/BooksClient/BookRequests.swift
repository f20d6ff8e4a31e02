import BooksCore
import BooksProtocol

/// The requests of the socket protocol, the same over every transport: `BooksClient` (the Unix
/// socket) and `NATSBooksClient` (NATS request/reply to `<prefix>.<store>.api`) implement `call`,
/// everything else is shared — one protocol for both transports.
public protocol BookRequests: Sendable {
    /// Sends one request of operation `op` (fields set by `configure`) and returns the result.
    /// - Throws: `.daemon` when the daemon answered with an error; a transport error otherwise.
    func call(
        _ op: Request.Operation, _ configure: (inout Request) -> Void
    ) async throws(BooksClientError)
        -> ReplyResult
    /// The books matching `query`, handed to `onPage` a page at a time as they arrive, in order;
    /// returns `total` and the position with no books (they all went to `onPage`). A transport
    /// without paging (NATS: one reply message) hands over one page.
    func list(
        _ query: BookQuery, onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage
    /// Ends the connection; later calls throw.
    func close()
    /// The server's name and version, when it said.
    var server: String? { get }
}

extension BookRequests {
    /// Checks that the daemon answers; returns its current position (epoch and seq).
    public func ping() async throws(BooksClientError) -> ResumePoint? {
        let result = try await call(.ping) { _ in }
        guard let epoch = result.epoch, let seq = result.seq else { return nil }
        return ResumePoint(epoch: epoch, seq: seq)
    }

    /// The daemon's state: file, bad lines, watcher, epoch/seq, subscribers, uptime.
    public func status() async throws(BooksClientError) -> DaemonStatus {
        let result = try await call(.status) { _ in }
        guard let status = result.status else { throw missing("status") }
        return status
    }

    /// The books matching `query` (filter, sort, limit, offset), evaluated by the daemon.
    public func list(_ query: BookQuery = BookQuery()) async throws(BooksClientError) -> BookPage {
        BookPage(try await call(.list) { $0.setQuery(query) })
    }

    /// One page: the whole reply (see the requirement).
    public func list(
        _ query: BookQuery, onPage: @escaping @Sendable ([Book]) -> Void
    ) async throws(BooksClientError) -> BookPage {
        var page = try await list(query)
        onPage(page.books)
        page.books = []
        return page
    }

    /// The books with the given ids, with their versions, in the order asked.
    ///
    /// - Throws: `.daemon` with code `not-found` when an id does not exist.
    public func get(_ ids: [String]) async throws(BooksClientError) -> [VersionedBook] {
        let result = try await call(.get) { $0.ids = ids }
        let books = result.books ?? []
        let versions = result.versions ?? []
        guard versions.count == books.count else {
            throw .protocolError(ProtocolError(.badRequest, "get: \(books.count) books but \(versions.count) versions"))
        }
        return zip(books, versions).map { VersionedBook(book: $0, version: $1) }
    }

    /// Inserts the books atomically (all or none); returns them as written, with their ids.
    public func insert(_ drafts: [BookDraft]) async throws(BooksClientError) -> [Book] {
        try await call(.insert) { $0.books = drafts }.books ?? []
    }

    /// Applies the patches atomically; returns the books as written.
    ///
    /// - Throws: `.daemon` with `conflict` (and `current`) when an `expectedVersion` does not match,
    ///   `not-found` for an unknown id.
    public func update(_ patches: [BookPatch]) async throws(BooksClientError) -> [Book] {
        try await call(.update) { $0.patches = patches }.books ?? []
    }

    /// Deletes the books atomically; with `expectedVersions` (parallel to `ids`), only if unchanged.
    /// Returns the deleted books as the daemon reports them.
    @discardableResult
    public func delete(_ ids: [String], expectedVersions: [UInt64]? = nil) async throws(BooksClientError) -> [Book] {
        try await call(.delete) {
            $0.ids = ids
            $0.expectedVersions = expectedVersions
        }.books ?? []
    }

    private func missing(_ field: String) -> BooksClientError {
        .protocolError(ProtocolError(.badRequest, "reply lacks `\(field)`"))
    }
}
