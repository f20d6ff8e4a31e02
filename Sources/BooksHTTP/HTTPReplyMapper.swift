import BooksCore
import BooksProtocol

/// Turns the engine's reply to a forwarded request into the HTTP response: status codes,
/// `ETag`, `Location`, JSON bodies. Pure.
public enum HTTPReplyMapper {
    /// The response to `reply` for `route`.
    public static func response(for route: HTTPRoute, reply: Reply) -> HTTPResponse {
        guard reply.ok, let result = reply.result else {
            let error = reply.error ?? ProtocolError(.internalError, "no result")
            return failure(error, route: route)
        }
        let books = zip(result.books ?? [], result.versions ?? []).map { book, version in
            HTTPBook(id: book.id, name: book.name, author: book.author, version: version)
        }
        switch route {
        case .getBook, .updateBook:
            guard let book = books.first else { return notFound(route) }
            return .json(200, encoding: book, headers: etag(book))
        case .insertBook(let store):
            guard let book = books.first else { return failure(ProtocolError(.internalError, "no book"), route: route) }
            let location = "/v1/stores/\(percentEncoded(store))/books/\(percentEncoded(book.id))"
            return .json(201, encoding: book, headers: etag(book) + [HTTPHeader("Location", location)])
        case .deleteBook:
            return HTTPResponse(status: 204)
        case .log:
            return logResponse(result)
        case .save:
            return .json(
                200, encoding: SaveResult(epoch: result.epoch ?? "", seq: result.seq ?? 0, remap: result.remap ?? [:]))
        default:
            return .json(200, encoding: SaveResult(epoch: result.epoch ?? "", seq: result.seq ?? 0, remap: [:]))
        }
    }

    /// `{"epoch","seq","oldestSeq","more","changes":[…]}`: the change sets of a `log` reply, oldest
    /// first, each the socket's `change` event line.
    static func logResponse(_ result: ReplyResult) -> HTTPResponse {
        // The epoch is a UUID booksd made: nothing in it needs escaping.
        var body = Array("{\"epoch\":\"\(result.epoch ?? "")\"".utf8)
        body += Array(",\"seq\":\(result.seq ?? 0),\"oldestSeq\":\(result.oldestSeq ?? 0),".utf8)
        body += Array("\"more\":\(result.more == true),\"changes\":".utf8)
        LongPollBody.appendArray(of: result.history ?? [], to: &body)
        body += Array("}\n".utf8)
        return .json(200, body)
    }

    /// The body of a successful `save`: the position it reached and the ids given to temporary ones.
    struct SaveResult: Encodable {
        var epoch: String
        var seq: UInt64
        var remap: [String: String]
    }

    /// The response to a failed request: the status for its code, the error as JSON.
    public static func failure(_ error: ProtocolError, route: HTTPRoute) -> HTTPResponse {
        let current = error.current.map {
            HTTPBook(id: $0.id, name: $0.name, author: $0.author, version: error.currentVersion)
        }
        let headers = current.map(etag) ?? []
        return .error(
            status(of: error.code, route: route), code: error.code.rawValue, message: error.message,
            current: current, headers: headers)
    }

    /// The HTTP status of a protocol error code.
    public static func status(of code: ProtocolError.ErrorCode, route: HTTPRoute) -> Int {
        switch code {
        case .badRequest, .invalidUTF8, .tooDeep, .invalidArgument, .unknownOp, .helloRequired, .unsupportedVersion,
            .storeRequired:
            400
        case .tooLarge: 413
        case .notFound, .unknownStore: 404
        case .conflict:
            switch route {
            case .updateBook, .deleteBook: 412
            default: 409
            }
        case .permissionDenied: 403
        case .limitExceeded: 429
        case .queryTooExpensive: 422
        case .storeUnavailable, .shuttingDown: 503
        case .baseNotKept: 409
        case .internalError: 500
        }
    }

    static func notFound(_ route: HTTPRoute) -> HTTPResponse {
        .error(404, code: "not-found", message: "no such book")
    }

    static func etag(_ book: HTTPBook) -> [HTTPHeader] {
        book.version.map { [HTTPHeader("ETag", ETag.format($0))] } ?? []
    }

    /// `text` with everything but unreserved characters percent-encoded (for a path segment).
    public static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
