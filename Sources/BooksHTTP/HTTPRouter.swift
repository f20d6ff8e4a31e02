import BooksCore
import BooksProtocol

/// What to do with a request head: answer it at once, or carry out a route.
public enum HTTPDecision: Sendable, Hashable {
    /// Answer with this response (an error, or a method not allowed); nothing is forwarded.
    case respond(HTTPResponse)
    /// Carry out the route (reading its body first when `takesBody`).
    case route(HTTPRoute)
}

/// Turns a request head into a route or an immediate answer. Pure: no socket, no engine, no clock.
///
/// Checks, in order: the `Host` header (DNS rebinding), the bearer token, a foreign `Origin` on a
/// mutating request (CSRF), then the path, the method, `If-Match` and the query.
public struct HTTPRouter: Sendable {
    /// Who may ask what.
    public var policy: HTTPSecurityPolicy

    /// A router enforcing `policy`.
    public init(policy: HTTPSecurityPolicy) {
        self.policy = policy
    }

    /// The decision for `head`.
    public func decide(_ head: HTTPRequestHead) -> HTTPDecision {
        if let refusal = policy.refusal(of: head) { return .respond(refusal) }
        let segments = head.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if segments == [""] || segments == ["index.html"] {
            return ["GET", "HEAD"].contains(head.method) ? .route(.page) : Self.notAllowed("GET")
        }
        if segments == ["v1", "changes"] {
            guard head.method == "GET" else { return Self.notAllowed("GET") }
            return storesFeed(head)
        }
        guard segments.count >= 2, segments[0] == "v1", segments[1] == "stores" else { return notFound(head) }
        if segments.count == 2 { return head.method == "GET" ? .route(.stores) : Self.notAllowed("GET") }
        guard segments.count >= 4, !segments[2].isEmpty else { return notFound(head) }
        let store = segments[2]
        switch (segments[3], segments.count) {
        case ("books", 4):
            switch head.method {
            case "GET":
                guard var query = Self.listQuery(head.query) else { return badQuery }
                if let text = head.query["at"] {
                    switch HTTPHistoryQuery.bound(text, head: head) {
                    case .failure(let response): return .respond(response)
                    case .success(let bound): query.at = bound
                    }
                }
                return .route(.listBooks(store: store, query))
            case "POST": return .route(.insertBook(store: store))
            default: return Self.notAllowed("GET, POST")
            }
        case ("books", 5) where !segments[4].isEmpty:
            return book(head, store: store, id: segments[4])
        case ("save", 4):
            return head.method == "POST" ? .route(.save(store: store)) : Self.notAllowed("POST")
        case ("changes", 4):
            guard head.method == "GET" else { return Self.notAllowed("GET") }
            return feed(head, store: store)
        case ("log", 4):
            guard head.method == "GET" else { return Self.notAllowed("GET") }
            switch HTTPHistoryQuery.log(head) {
            case .failure(let response): return .respond(response)
            case .success(let query): return .route(.log(store: store, query))
            }
        default:
            return notFound(head)
        }
    }

    private func notFound(_ head: HTTPRequestHead) -> HTTPDecision {
        .respond(.error(404, code: "not-found", message: "no such resource: \(head.path)"))
    }

    private var badQuery: HTTPDecision {
        .respond(
            .error(
                400, code: "invalid-argument",
                message: "bad query: limit is 1…\(HTTPListQuery.maxLimit), after a next token, sort a field (name, "
                    + "author, id) with an optional leading -"))
    }

    private func book(_ head: HTTPRequestHead, store: String, id: String) -> HTTPDecision {
        let ifMatch: UInt64?
        switch ETag.parseIfMatch(head.header("If-Match")) {
        case .failure:
            return .respond(.error(400, code: "bad-request", message: "If-Match must be a version ETag such as \"3\""))
        case .success(let version): ifMatch = version
        }
        switch head.method {
        case "GET", "HEAD": return .route(.getBook(store: store, id: id))
        case "PUT", "DELETE":
            if ifMatch == nil, policy.requireIfMatch {
                return .respond(
                    .error(
                        428, code: "precondition-required",
                        message: "this booksd requires If-Match with the book's version (http_require_if_match)"))
            }
            return .route(
                head.method == "PUT"
                    ? .updateBook(store: store, id: id, ifMatch: ifMatch)
                    : .deleteBook(store: store, id: id, ifMatch: ifMatch))
        default: return Self.notAllowed("GET, PUT, DELETE")
        }
    }

    /// `feed=` and `Accept` of a change feed: true for a long poll, or the refusal.
    private func feedKind(_ head: HTTPRequestHead) -> Result<Bool, HTTPResponse> {
        let longPoll = head.query["feed"] == "longpoll"
        if let feed = head.query["feed"], !longPoll, feed != "eventsource" {
            return .failure(.error(400, code: "invalid-argument", message: "feed is eventsource or longpoll"))
        }
        if !longPoll, let accept = head.header("Accept"), !accept.contains("text/event-stream"),
            !accept.contains("*/*")
        {
            return .failure(
                .error(406, code: "not-acceptable", message: "the change feed is text/event-stream (or feed=longpoll)"))
        }
        return .success(longPoll)
    }

    /// `timeout=` of a long poll, or the refusal.
    private func pollTimeout(_ head: HTTPRequestHead) -> Result<Int, HTTPResponse> {
        guard let text = head.query["timeout"] else { return .success(LongPollBody.defaultTimeoutSeconds) }
        guard let seconds = Int(text), (1...300).contains(seconds) else {
            return .failure(.error(400, code: "invalid-argument", message: "timeout is 1…300 seconds"))
        }
        return .success(seconds)
    }

    private func storesFeed(_ head: HTTPRequestHead) -> HTTPDecision {
        guard let names = head.query["stores"], !names.isEmpty else {
            return .respond(
                .error(400, code: "invalid-argument", message: "stores= names the stores (a,b) or * for every store"))
        }
        let stores = names == "*" ? nil : names.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if let stores, stores.contains(where: { $0.isEmpty || $0 == "*" }) {
            return .respond(.error(400, code: "invalid-argument", message: "stores= is a,b (names) or * alone"))
        }
        let longPoll: Bool
        let timeout: Int
        switch (feedKind(head), pollTimeout(head)) {
        case (.failure(let response), _), (_, .failure(let response)): return .respond(response)
        case (.success(let kind), .success(let seconds)):
            longPoll = kind
            timeout = seconds
        }
        var resumes: [String: ResumePoint] = [:]
        if let text = head.header("Last-Event-ID") ?? head.query["since"] {
            guard let positions = StoresEventID.parse(text) else {
                return .respond(
                    .error(400, code: "invalid-argument", message: "an event id of several stores is STORE=EPOCH:SEQ,…")
                )
            }
            resumes = positions
        }
        return .route(
            .storesChanges(
                HTTPStoresFeedQuery(stores: stores, resumes: resumes, longPoll: longPoll, timeoutSeconds: timeout)))
    }

    private func feed(_ head: HTTPRequestHead, store: String) -> HTTPDecision {
        let longPoll: Bool
        switch feedKind(head) {
        case .failure(let response): return .respond(response)
        case .success(let kind): longPoll = kind
        }
        var resume: ResumePoint?
        if let text = head.header("Last-Event-ID") ?? head.query["since"] {
            guard let point = EventID.parse(text) else {
                return .respond(.error(400, code: "invalid-argument", message: "an event id is EPOCH:SEQ"))
            }
            resume = point
        }
        let timeout: Int
        switch pollTimeout(head) {
        case .failure(let response): return .respond(response)
        case .success(let seconds): timeout = seconds
        }
        return .route(
            .changes(HTTPFeedQuery(store: store, resume: resume, longPoll: longPoll, timeoutSeconds: timeout)))
    }

    /// The list query of `query`, or nil when a value is bad.
    static func listQuery(_ query: [String: String]) -> HTTPListQuery? {
        var result = HTTPListQuery()
        var conditions: [BookCondition] = []
        if let author = query["author"], !author.isEmpty {
            conditions.append(BookCondition(.author, .containsIgnoringCase, author))
        }
        if let name = query["name"], !name.isEmpty {
            conditions.append(BookCondition(.name, .containsIgnoringCase, name))
        }
        result.filter = BookFilter(conditions)
        if let text = query["sort"], !text.isEmpty {
            guard let sort = BookSort(parsing: text) else { return nil }
            result.sort = sort
        }
        if let text = query["limit"] {
            guard let n = Int(text), (1...HTTPListQuery.maxLimit).contains(n) else { return nil }
            result.limit = n
        }
        if let text = query["after"], !text.isEmpty {
            guard let n = Int(text), n >= 0 else { return nil }
            result.offset = n
        }
        return result
    }

    static func notAllowed(_ allowed: String) -> HTTPDecision {
        .respond(
            .error(
                405, code: "method-not-allowed", message: "allowed here: \(allowed)",
                headers: [HTTPHeader("Allow", allowed)]))
    }
}
