import BooksCore
import BooksProtocol
import FoundationEssentials

/// Turns a route and its body into the socket protocol's request, which the engine carries out
/// exactly as a socket client's. Pure.
public enum HTTPRequestBuilder {
    /// The request of `route` (with id `id`), or the 4xx response for a bad body (not JSON, not
    /// UTF-8, a field missing or of the wrong type).
    public static func request(for route: HTTPRoute, body: [UInt8], id: String) -> Result<Request, HTTPResponse> {
        if route.takesBody, String(validating: body, as: UTF8.self) == nil {
            return .failure(.error(400, code: "invalid-utf8", message: "the request body is not valid UTF-8"))
        }
        switch route {
        case .page, .stores, .changes, .storesChanges:
            return .failure(.error(500, code: "internal", message: "this route is not forwarded as a request"))
        case .listBooks(let store, let query):
            return .success(
                Request(
                    id: id, op: .list, filter: query.filter.isEmpty ? nil : query.filter, sort: query.sort,
                    limit: query.limit, offset: query.offset, store: store, at: query.at))
        case .log(let store, let query):
            return .success(
                Request(
                    id: id, op: .log, limit: query.limit, ids: query.ids, store: store, since: query.since,
                    until: query.until))
        case .getBook(let store, let bookID):
            return .success(Request(id: id, op: .get, ids: [bookID], store: store))
        case .deleteBook(let store, let bookID, let ifMatch):
            return .success(
                Request(id: id, op: .delete, ids: [bookID], expectedVersions: ifMatch.map { [$0] }, store: store))
        case .insertBook(let store):
            return decode(BookBody.self, body).flatMap { book in
                guard let name = book.name, let author = book.author else {
                    return .failure(missing("a new book needs name and author"))
                }
                return .success(
                    Request(
                        id: id, op: .insert, books: [BookDraft(id: book.id, name: name, author: author)], store: store))
            }
        case .updateBook(let store, let bookID, let ifMatch):
            return decode(BookBody.self, body).flatMap { book in
                if let other = book.id, other != bookID {
                    return .failure(missing("the body's id \(other) is not the path's \(bookID)"))
                }
                guard book.name != nil || book.author != nil else {
                    return .failure(missing("an update sets name, author or both"))
                }
                let patch = BookPatch(id: bookID, name: book.name, author: book.author, expectedVersion: ifMatch)
                return .success(Request(id: id, op: .update, patches: [patch], store: store))
            }
        case .save(let store):
            return decode(SaveBody.self, body).map { save in
                Request(
                    id: id, op: .save, inserted: save.inserted ?? [], updated: save.updated ?? [],
                    deleted: save.deleted ?? [], store: store)
            }
        }
    }

    /// The body of `POST …/books` and `PUT …/books/{id}`.
    struct BookBody: Decodable {
        var id: String?
        var name: String?
        var author: String?
    }

    /// The body of `POST …/save` (the socket's `save` fields).
    struct SaveBody: Decodable {
        var inserted: [BookInsertion]?
        var updated: [BookPatch]?
        var deleted: [BookDeletion]?
    }

    static func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) -> Result<T, HTTPResponse> {
        guard !body.isEmpty else { return .failure(missing("a JSON body is required")) }
        guard !RequestDecoder.nestingDepthExceeds(body, RequestDecoder.defaultMaxDepth) else {
            return .failure(.error(400, code: "too-deep", message: "the JSON body is nested too deeply"))
        }
        do {
            return .success(try JSONDecoder().decode(T.self, from: Data(body)))
        } catch {
            return .failure(missing("the body is not the expected JSON object"))
        }
    }

    static func missing(_ message: String) -> HTTPResponse {
        .error(400, code: "bad-request", message: message)
    }
}
