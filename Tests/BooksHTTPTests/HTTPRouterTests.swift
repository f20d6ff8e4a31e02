import BooksCore
import BooksProtocol
import Testing

@testable import BooksHTTP

/// Routing, status codes and the security checks of `HTTPRouter`, on request heads alone.
@Suite struct HTTPRouterTests {
    static let policy = HTTPSecurityPolicy(
        hosts: ["127.0.0.1", "localhost"], ports: [8080], tokens: nil, requireIfMatch: false, maxBodyBytes: 1 << 20)

    static func head(
        _ method: String, _ path: String, query: [String: String] = [:], headers: [String: String] = [:]
    ) -> HTTPRequestHead {
        HTTPRequestHead(
            method: method, path: path, query: query, headers: ["Host": "127.0.0.1:8080"].merging(headers) { $1 })
    }

    static func decide(_ head: HTTPRequestHead, policy: HTTPSecurityPolicy = policy) -> HTTPDecision {
        HTTPRouter(policy: policy).decide(head)
    }

    static func status(_ decision: HTTPDecision) -> Int? {
        if case .respond(let response) = decision { return response.status }
        return nil
    }

    @Test func pathsAndMethodsBecomeRoutes() {
        #expect(Self.decide(Self.head("GET", "/")) == .route(.page))
        #expect(Self.decide(Self.head("GET", "/v1/stores")) == .route(.stores))
        #expect(Self.decide(Self.head("GET", "/v1/stores/s/books")) == .route(.listBooks(store: "s", HTTPListQuery())))
        #expect(Self.decide(Self.head("GET", "/v1/stores/s/books/b1")) == .route(.getBook(store: "s", id: "b1")))
        #expect(Self.decide(Self.head("POST", "/v1/stores/s/books")) == .route(.insertBook(store: "s")))
        #expect(
            Self.decide(Self.head("PUT", "/v1/stores/s/books/b1", headers: ["If-Match": "\"3\""]))
                == .route(.updateBook(store: "s", id: "b1", ifMatch: 3)))
        #expect(
            Self.decide(Self.head("DELETE", "/v1/stores/s/books/b1"))
                == .route(.deleteBook(store: "s", id: "b1", ifMatch: nil)))
        #expect(Self.decide(Self.head("POST", "/v1/stores/s/save")) == .route(.save(store: "s")))
        #expect(Self.status(Self.decide(Self.head("GET", "/nope"))) == 404)
        #expect(Self.status(Self.decide(Self.head("PATCH", "/v1/stores/s/books/b1"))) == 405)
        #expect(Self.status(Self.decide(Self.head("DELETE", "/v1/stores"))) == 405)
        #expect(Self.decide(Self.head("GET", "/v1/stores/s/log")) == .route(.log(store: "s", HTTPLogQuery())))
        let epoch = "5A09FBA9-438A-491F-9D7A-06A9CA45A49D"
        let query = ["since": "\(epoch):2", "until": "9", "limit": "5", "id": "a,b"]
        #expect(
            Self.decide(Self.head("GET", "/v1/stores/s/log", query: query))
                == .route(
                    .log(
                        store: "s",
                        HTTPLogQuery(
                            since: HistoryBound(epoch: epoch, seq: 2), until: HistoryBound(seq: 9), limit: 5,
                            ids: ["a", "b"]))))
        #expect(
            Self.decide(Self.head("GET", "/v1/stores/s/books", query: ["at": "3"]))
                == .route(.listBooks(store: "s", HTTPListQuery(at: HistoryBound(seq: 3)))))
        #expect(Self.status(Self.decide(Self.head("GET", "/v1/stores/s/log", query: ["since": "soon"]))) == 400)
        #expect(Self.status(Self.decide(Self.head("GET", "/v1/stores/s/log", query: ["limit": "1001"]))) == 400)
    }

    @Test func listQueriesAreTheListFiltersAndAPage() {
        let decision = Self.decide(
            Self.head(
                "GET", "/v1/stores/s/books",
                query: ["author": "austen", "name": "pride", "sort": "-name", "limit": "5", "after": "10"]))
        let expected = HTTPListQuery(
            filter: BookFilter([
                BookCondition(.author, .containsIgnoringCase, "austen"),
                BookCondition(.name, .containsIgnoringCase, "pride"),
            ]),
            sort: BookSort(.name, ascending: false), limit: 5, offset: 10)
        #expect(decision == .route(.listBooks(store: "s", expected)))
        for bad in [["limit": "0"], ["limit": "x"], ["limit": "10001"], ["sort": "colour"], ["after": "-1"]] {
            #expect(Self.status(Self.decide(Self.head("GET", "/v1/stores/s/books", query: bad))) == 400)
        }
    }

    @Test func ifMatchIsAVersionAndMayBeRequired() {
        #expect(
            Self.status(Self.decide(Self.head("PUT", "/v1/stores/s/books/b", headers: ["If-Match": "\"x\""]))) == 400)
        var strict = Self.policy
        strict.requireIfMatch = true
        #expect(Self.status(Self.decide(Self.head("PUT", "/v1/stores/s/books/b"), policy: strict)) == 428)
        #expect(Self.status(Self.decide(Self.head("DELETE", "/v1/stores/s/books/b"), policy: strict)) == 428)
        #expect(
            Self.decide(Self.head("PUT", "/v1/stores/s/books/b", headers: ["If-Match": "W/\"7\""]), policy: strict)
                == .route(.updateBook(store: "s", id: "b", ifMatch: 7)))
        #expect(ETag.parseIfMatch("*") == .success(nil))
        #expect(ETag.format(12) == "\"12\"")
    }

    @Test func foreignHostsAreRefused() {
        #expect(Self.status(Self.decide(Self.head("GET", "/", headers: ["Host": "evil.example:8080"]))) == 421)
        #expect(Self.status(Self.decide(Self.head("GET", "/", headers: ["Host": "127.0.0.1:9999"]))) == 421)
        #expect(Self.status(Self.decide(HTTPRequestHead(method: "GET", path: "/"))) == 400)
        #expect(Self.decide(Self.head("GET", "/", headers: ["Host": "LOCALHOST:8080"])) == .route(.page))
        #expect(Self.decide(Self.head("GET", "/", headers: ["Host": "localhost"])) == .route(.page))
        let v6 = HTTPSecurityPolicy(hosts: ["[::1]"], ports: [80], tokens: nil, requireIfMatch: false, maxBodyBytes: 1)
        #expect(v6.admits(host: "[::1]:80"))
        #expect(!v6.admits(host: "[::1]:81"))
        #expect(!v6.admits(host: "[::2]"))
    }

    @Test func foreignOriginsMayReadButNotWrite() {
        let foreign = ["Origin": "http://evil.example"]
        #expect(Self.status(Self.decide(Self.head("POST", "/v1/stores/s/books", headers: foreign))) == 403)
        #expect(Self.status(Self.decide(Self.head("DELETE", "/v1/stores/s/books/b", headers: foreign))) == 403)
        #expect(Self.decide(Self.head("GET", "/v1/stores", headers: foreign)) == .route(.stores))
        #expect(
            Self.decide(Self.head("POST", "/v1/stores/s/books", headers: ["Origin": "http://localhost:8080"]))
                == .route(.insertBook(store: "s")))
        #expect(
            Self.status(Self.decide(Self.head("POST", "/v1/stores/s/books", headers: ["Sec-Fetch-Site": "cross-site"])))
                == 403)
        #expect(Self.status(Self.decide(Self.head("OPTIONS", "/v1/stores"))) == 405)
    }

    @Test func aConfiguredTokenIsRequired() {
        var policy = Self.policy
        policy.tokens = HTTPTokens(token: "s3cret")
        let refused = Self.decide(Self.head("GET", "/v1/stores"), policy: policy)
        #expect(Self.status(refused) == 401)
        #expect(
            Self.status(
                Self.decide(Self.head("GET", "/v1/stores", headers: ["Authorization": "Bearer nope"]), policy: policy))
                == 401)
        #expect(
            Self.decide(Self.head("GET", "/v1/stores", headers: ["Authorization": "Bearer s3cret"]), policy: policy)
                == .route(.stores))
    }

    @Test func aReadTokenMayReadButNotWrite() throws {
        var policy = Self.policy
        policy.tokens = try HTTPTokens.parse(
            "# who may do what\nw-token write alice\n\nr-token read dashboard\nlegacy\n")
        func status(_ method: String, _ path: String, _ token: String) -> Int? {
            Self.status(
                Self.decide(Self.head(method, path, headers: ["Authorization": "Bearer \(token)"]), policy: policy))
        }
        #expect(status("GET", "/v1/stores", "r-token") == nil)
        #expect(status("GET", "/v1/stores/s/changes", "r-token") == nil)
        #expect(status("POST", "/v1/stores/s/books", "r-token") == 403)
        #expect(status("PUT", "/v1/stores/s/books/b1", "r-token") == 403)
        #expect(status("DELETE", "/v1/stores/s/books/b1", "r-token") == 403)
        #expect(status("POST", "/v1/stores/s/save", "r-token") == 403)
        #expect(status("POST", "/v1/stores/s/books", "w-token") == nil)
        #expect(status("POST", "/v1/stores/s/books", "legacy") == nil)
        #expect(status("GET", "/v1/stores", "read") == 401)
        #expect(policy.tokens?.entries.map(\.label) == ["alice", "dashboard", ""])
        #expect(throws: HTTPTokenFileError.self) { try HTTPTokens.parse("t admin\n") }
        #expect(throws: HTTPTokenFileError.self) { try HTTPTokens.parse("# none\n\n") }
    }

    @Test func feedsResumeFromLastEventIDOrSince() {
        let sse = ["Accept": "text/event-stream"]
        #expect(
            Self.decide(Self.head("GET", "/v1/stores/s/changes", headers: sse))
                == .route(.changes(HTTPFeedQuery(store: "s", resume: nil, longPoll: false))))
        #expect(
            Self.decide(
                Self.head("GET", "/v1/stores/s/changes", headers: sse.merging(["Last-Event-ID": "E-1:7"]) { $1 }))
                == .route(
                    .changes(HTTPFeedQuery(store: "s", resume: ResumePoint(epoch: "E-1", seq: 7), longPoll: false))))
        #expect(
            Self.decide(Self.head("GET", "/v1/stores/s/changes", query: ["since": "E:3", "feed": "longpoll"]))
                == .route(.changes(HTTPFeedQuery(store: "s", resume: ResumePoint(epoch: "E", seq: 3), longPoll: true))))
        #expect(
            Self.status(Self.decide(Self.head("GET", "/v1/stores/s/changes", headers: ["Accept": "application/json"])))
                == 406)
        #expect(Self.status(Self.decide(Self.head("GET", "/v1/stores/s/changes", query: ["since": "nope"]))) == 400)
    }
}
