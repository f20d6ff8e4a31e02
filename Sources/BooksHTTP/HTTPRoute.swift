import BooksCore
import BooksProtocol

/// What a request asks for, once its path, method, query and headers were checked.
public enum HTTPRoute: Sendable, Hashable {
    /// `GET /`: the web page.
    case page
    /// `GET /v1/stores`.
    case stores
    /// `GET /v1/stores/{store}/books`.
    case listBooks(store: String, HTTPListQuery)
    /// `GET /v1/stores/{store}/books/{id}`.
    case getBook(store: String, id: String)
    /// `POST /v1/stores/{store}/books` (body: a book without id, or with one).
    case insertBook(store: String)
    /// `PUT /v1/stores/{store}/books/{id}` (body: the fields to set); `ifMatch` the expected version.
    case updateBook(store: String, id: String, ifMatch: UInt64?)
    /// `DELETE /v1/stores/{store}/books/{id}`; `ifMatch` the expected version.
    case deleteBook(store: String, id: String, ifMatch: UInt64?)
    /// `POST /v1/stores/{store}/save` (body: inserted / updated / deleted, as the socket's `save`).
    case save(store: String)
    /// `GET /v1/stores/{store}/changes`: the change feed (SSE or long poll).
    case changes(HTTPFeedQuery)

    /// The store the route is about, or nil (`page`, `stores`).
    public var store: String? {
        switch self {
        case .page, .stores: nil
        case .listBooks(let store, _), .getBook(let store, _), .insertBook(let store), .save(let store):
            store
        case .updateBook(let store, _, _), .deleteBook(let store, _, _): store
        case .changes(let feed): feed.store
        }
    }

    /// True when the request has a JSON body to read before it can be forwarded.
    public var takesBody: Bool {
        switch self {
        case .insertBook, .updateBook, .save: true
        default: false
        }
    }
}

/// The query of `GET …/books`: the filters and sort of `booksctl list`, and a page.
public struct HTTPListQuery: Sendable, Hashable {
    /// `author=` / `name=` (contained, ignoring case, as `booksctl list --author/--name`).
    public var filter: BookFilter
    /// `sort=name`, `sort=-author`, …; nil: file order.
    public var sort: BookSort?
    /// `limit=` (1…`maxLimit`, default `defaultLimit`).
    public var limit: Int
    /// `after=`: the `next` token of the previous page (books skipped).
    public var offset: Int

    /// The page size without `limit=`.
    public static let defaultLimit = 100
    /// The largest page.
    public static let maxLimit = 10_000

    /// A query.
    public init(filter: BookFilter = .all, sort: BookSort? = nil, limit: Int = defaultLimit, offset: Int = 0) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }
}

/// The query of a change feed.
public struct HTTPFeedQuery: Sendable, Hashable {
    /// The store followed.
    public var store: String
    /// Where to resume (`Last-Event-ID`, else `since=`); nil: from now on.
    public var resume: ResumePoint?
    /// `feed=longpoll`: one JSON reply with the changes after `resume` (waiting for the first).
    public var longPoll: Bool
    /// `timeout=` of a long poll: seconds to wait for a change (1…300).
    public var timeoutSeconds: Int

    /// A feed query.
    public init(
        store: String, resume: ResumePoint?, longPoll: Bool, timeoutSeconds: Int = LongPollBody.defaultTimeoutSeconds
    ) {
        self.store = store
        self.resume = resume
        self.longPoll = longPoll
        self.timeoutSeconds = timeoutSeconds
    }
}

/// An SSE event id: `EPOCH:SEQ`.
public enum EventID {
    /// `EPOCH:SEQ` of a position.
    public static func format(epoch: String, seq: UInt64) -> String { "\(epoch):\(seq)" }

    /// The position in an id (`EPOCH:SEQ`, split at the last `:`), or nil.
    public static func parse(_ text: String) -> ResumePoint? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let epoch = String(text[..<colon])
        guard !epoch.isEmpty, let seq = UInt64(text[text.index(after: colon)...]) else { return nil }
        return ResumePoint(epoch: epoch, seq: seq)
    }
}
