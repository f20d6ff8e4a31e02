import BooksProtocol

/// The history parameters of a request: `since=`, `until=`, `limit=` and `id=` of `GET …/log`,
/// `at=` of `GET …/books`. Each WHEN is one of booksctl's (`HistoryPoint`): a seq, a cursor
/// `EPOCH:SEQ`, an ISO 8601 time (UTC unless it names an offset), `now`, `today`,
/// `yesterday` (UTC midnight) or `-10m`/`-2h`/`-3d` (back from when the request came). Pure.
public enum HTTPHistoryQuery {
    /// The bound `text` names, or a 400 saying what a WHEN may be.
    public static func bound(_ text: String, head: HTTPRequestHead) -> Result<HistoryBound, HTTPResponse> {
        do throws(HistoryPointError) {
            return .success(HistoryBound(try HistoryPoint.parse(text, now: head.receivedAt, zone: .utc)))
        } catch {
            return .failure(
                .error(400, code: "invalid-argument", message: "\(error); a time is one of \(HistoryPoint.forms)"))
        }
    }

    /// The log query of `head`, or a 400.
    public static func log(_ head: HTTPRequestHead) -> Result<HTTPLogQuery, HTTPResponse> {
        var query = HTTPLogQuery()
        for (name, isSince) in [("since", true), ("until", false)] {
            guard let text = head.query[name] else { continue }
            switch bound(text, head: head) {
            case .failure(let response): return .failure(response)
            case .success(let value):
                if isSince { query.since = value } else { query.until = value }
            }
        }
        if let text = head.query["limit"] {
            guard let limit = Int(text), (1...HTTPLogQuery.maxLimit).contains(limit) else {
                return .failure(
                    .error(400, code: "invalid-argument", message: "limit is 1…\(HTTPLogQuery.maxLimit) change sets"))
            }
            query.limit = limit
        }
        if let text = head.query["id"], !text.isEmpty {
            query.ids = text.split(separator: ",").map(String.init)
        }
        return .success(query)
    }
}
