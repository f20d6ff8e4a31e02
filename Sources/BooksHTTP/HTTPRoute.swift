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
    /// `GET /v1/stores/{store}/log`: the history kept (the socket's `log`).
    case log(store: String, HTTPLogQuery)
    /// `GET /v1/changes?stores=a,b` (or `*`): one change feed of several stores.
    case storesChanges(HTTPStoresFeedQuery)

    /// The store the route is about, or nil (`page`, `stores`).
    public var store: String? {
        switch self {
        case .page, .stores, .storesChanges: nil
        case .listBooks(let store, _), .getBook(let store, _), .insertBook(let store), .save(let store):
            store
        case .updateBook(let store, _, _), .deleteBook(let store, _, _): store
        case .changes(let feed): feed.store
        case .log(let store, _): store
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
    /// `at=`: the list as it was at this point of the history (nil: now).
    public var at: HistoryBound?

    /// The page size without `limit=`.
    public static let defaultLimit = 100
    /// The largest page.
    public static let maxLimit = 10_000

    /// A query.
    public init(
        filter: BookFilter = .all, sort: BookSort? = nil, limit: Int = defaultLimit, offset: Int = 0,
        at: HistoryBound? = nil
    ) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.offset = offset
        self.at = at
    }
}

/// The query of `GET …/log`: the socket's `log` bounds and selection.
public struct HTTPLogQuery: Sendable, Hashable {
    /// `since=`: change sets after this seq or cursor, or at or after this time.
    public var since: HistoryBound?
    /// `until=`: change sets up to this seq, cursor or time (inclusive).
    public var until: HistoryBound?
    /// `limit=`: the newest this many (1…1000; nil: 1000).
    public var limit: Int?
    /// `id=` (comma-separated): only change sets touching these books.
    public var ids: [String]?

    /// The most change sets one reply carries.
    public static let maxLimit = 1000

    /// A log query.
    public init(since: HistoryBound? = nil, until: HistoryBound? = nil, limit: Int? = nil, ids: [String]? = nil) {
        self.since = since
        self.until = until
        self.limit = limit
        self.ids = ids
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

/// The query of a feed of several stores.
public struct HTTPStoresFeedQuery: Sendable, Hashable {
    /// The stores followed (`stores=a,b`), or nil for every store, also those added later (`*`).
    public var stores: [String]?
    /// Where each store resumes (`Last-Event-ID`, else `since=`: a `StoresEventID`); stores not
    /// named start from now.
    public var resumes: [String: ResumePoint]
    /// `feed=longpoll`.
    public var longPoll: Bool
    /// `timeout=` of a long poll (1…300 seconds).
    public var timeoutSeconds: Int

    /// A query.
    public init(
        stores: [String]?, resumes: [String: ResumePoint] = [:], longPoll: Bool = false,
        timeoutSeconds: Int = LongPollBody.defaultTimeoutSeconds
    ) {
        self.stores = stores
        self.resumes = resumes
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
