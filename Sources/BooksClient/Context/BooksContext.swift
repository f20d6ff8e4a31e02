import BooksCore
import BooksPlatform
import BooksProtocol

/// A unit of work over the books of one daemon, as a SwiftData `ModelContext`: fetch books,
/// insert, change and delete them in memory, then `save()` them all at once.
///
/// ```swift
/// let context = BooksContext(client)
/// let dune = try await context.fetch(BookQuery(filter: BookFilter([.init(.name, .equals, "Dune")])))
/// let id = context.insert(name: "Emma", author: "Jane Austen")
/// try context.update(dune[0].id, author: "Frank Herbert")
/// let remap = try await context.save()   // remap[id] is Emma's permanent id
/// ```
///
/// Guarantees:
/// - `save()` sends every unsaved change as one `save` request: the daemon applies it all or
///   nothing, in one durable write and one change set. Changes and deletions are conditional on
///   the version each book had when this context fetched it; if any of them changed in the file
///   since, nothing is written and `.conflict` lists every such book with its current values.
/// - A change carries only the fields that were set (and differ from the fetched values), so a
///   save writes only those fields; `keepMyChanges(over:)` resolves a conflict in favour of this
///   context without undoing another program's change to the other field.
/// - A failed save keeps the unsaved changes; `rollback()` drops them.
/// - Fetches see the unsaved changes (inserted books carry their temporary ids).
/// - Thread-safe: methods may be called from any task; each takes the context's state under a
///   lock, never across a request.
public final class BooksContext: Sendable {
    /// The connection requests go through (a `BooksClient` or a `NATSBooksClient`).
    public let requests: any BookRequests
    private let state = Locked(BooksContextState())
    /// The daemon answers a `get` of at most 10,000 ids.
    static let idsPerGet = 10_000

    /// Creates a context over `requests`. It holds no books until it fetches.
    public init(_ requests: any BookRequests) {
        self.requests = requests
    }

    /// True when the context holds unsaved insertions, changes or deletions.
    public var hasChanges: Bool { state.withLock { $0.hasChanges } }

    /// Adds a new book (unsaved); returns its temporary id, which `update` and `delete` accept
    /// and `save()` maps to the permanent id.
    @discardableResult
    public func insert(name: String, author: String) -> String {
        state.withLock { $0.insert(name: name, author: author) }
    }

    /// Changes the given fields of book `id` (unsaved): a book this context fetched, or one it
    /// inserted. Setting a book back to its fetched values drops the change.
    ///
    /// - Throws: `.unknownBook` for a book this context has not fetched; `.deletedBook` for one
    ///   deleted in it.
    public func update(_ id: String, name: String? = nil, author: String? = nil) throws(BooksContextError) {
        try state.withLock { (s: inout BooksContextState) throws(BooksContextError) in
            try s.update(id, name: name, author: author)
        }
    }

    /// Deletes book `id` (unsaved): a book this context fetched, or one it inserted (which is
    /// then simply forgotten).
    ///
    /// - Throws: `.unknownBook` for a book this context has not fetched.
    public func delete(_ id: String) throws(BooksContextError) {
        try state.withLock { (s: inout BooksContextState) throws(BooksContextError) in try s.delete(id) }
    }

    /// Drops every unsaved change; fetched books keep their fetched values.
    public func rollback() {
        state.withLock { $0.rollback() }
    }

    /// Resolves a `.conflict` in favour of this context: the unsaved changes of the conflicting
    /// books are based on the current versions the error carries, so the next `save()` writes
    /// them over what the file holds now. A book deleted in the file meanwhile loses its unsaved
    /// change (it cannot be changed or deleted any more). Other unsaved changes are untouched;
    /// to drop everything instead, `rollback()`.
    public func keepMyChanges(over conflicts: [BookConflict]) {
        state.withLock { $0.rebase(on: conflicts) }
    }

    /// Writes every unsaved change in one all-or-nothing `save`; returns the permanent id of each
    /// inserted book keyed by its temporary id (empty when there was nothing to save).
    /// Changes made while the save runs stay unsaved.
    ///
    /// - Throws: `.conflict` (nothing written) when a book changed or was deleted in the file since
    ///   it was fetched; `.client` for a transport or other daemon failure. Unsaved changes are
    ///   kept either way.
    @discardableResult
    public func save() async throws(BooksContextError) -> [String: String] {
        let sent = state.withLock { $0.request }
        guard !sent.inserted.isEmpty || !sent.updated.isEmpty || !sent.deleted.isEmpty else { return [:] }
        let result: BookSaveResult
        do {
            result = try await requests.save(inserted: sent.inserted, updated: sent.updated, deleted: sent.deleted)
        } catch {
            throw BooksContextError.from(error)
        }
        state.withLock { $0.saved(result, sent: sent) }
        return result.remap
    }

    /// Saves on its own: every `interval`, when the context has unsaved changes, it calls
    /// `save()`, until the returned task is cancelled (cancel it before dropping the context).
    /// A failed save is handed to `onFailure` and its changes stay unsaved; the next tick tries
    /// again, so after a `.conflict` resolve it (`keepMyChanges(over:)` or `rollback()`) or
    /// every later tick fails the same way.
    public func autosave(
        every interval: Duration, onFailure: @escaping @Sendable (BooksContextError) -> Void = { _ in }
    ) -> Task<Void, Never> {
        Task { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, hasChanges else { continue }
                do throws(BooksContextError) {
                    try await save()
                } catch {
                    onFailure(error)
                }
            }
        }
    }

    /// The books `query` selects (filter over name/author, sort, offset, limit), as this context
    /// sees them: the file's books with the unsaved changes applied. The books returned become
    /// known to the context, with their versions, so they may be changed and deleted.
    ///
    /// The versions come from `get` requests after the `list` (10,000 ids each), whose values are
    /// the ones returned, so values and versions always belong together.
    ///
    /// - Throws: `.client` when a request fails (a book deleted while the fetch runs is retried
    ///   a few times first).
    public func fetch(_ query: BookQuery = BookQuery()) async throws(BooksContextError) -> [Book] {
        var attempt = 0
        while true {
            attempt += 1
            let (asked, pending) = state.withLock { ($0.serverQuery(for: query), $0.hasChanges) }
            do {
                let page = try await requests.list(asked)
                let fresh = page.books.filter { book in !state.withLock { $0.isPending(book.id) } }
                var versioned: [VersionedBook] = []
                for start in stride(from: 0, to: fresh.count, by: Self.idsPerGet) {
                    let ids = fresh[start..<min(start + Self.idsPerGet, fresh.count)].map(\.id)
                    versioned += try await requests.get(ids)
                }
                let server = Self.withFetchedValues(page.books, versioned)
                return state.withLock { s in
                    s.absorb(versioned)
                    return pending ? s.merged(server: server, query: query) : server
                }
            } catch {
                if error.daemonCode == .notFound, attempt < 3 { continue }  // deleted between list and get
                throw .client(error)
            }
        }
    }

    /// The list's books with the values `get` returned (read together with their versions).
    private static func withFetchedValues(_ listed: [Book], _ versioned: [VersionedBook]) -> [Book] {
        let byID = Dictionary(versioned.map { ($0.book.id, $0.book) }, uniquingKeysWith: { a, _ in a })
        return listed.map { byID[$0.id] ?? $0 }
    }
}
