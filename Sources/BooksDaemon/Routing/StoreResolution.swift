import BooksProtocol

/// Which store a request is about (pure: the names there are and the request in, a name or the
/// error to answer with out).
///
/// - A named store must exist (`unknown-store`, listing the stores).
/// - An error lists at most ``maxListedNames`` names (the nearest to the name asked first), so
///   a daemon of thousands of stores answers a short request with a short error.
/// - No name, version 1: the store `default`, or the only store (else `unknown-store`).
/// - No name, version 2: the only store (else `store-required`, listing the stores).
/// - `stores` (subscribe/unsubscribe): `["*"]` is every store; each name must exist.
public enum StoreResolution {
    /// The name of the store version-1 clients are served when there are several.
    public static let defaultStore = "default"
    /// The wildcard of `stores`: every store, also those added later.
    public static let everyStore = "*"
    /// The most store names an `unknown-store` or `store-required` error lists.
    public static let maxListedNames = 20

    /// The store `request` is about, for a connection that speaks `version`.
    public static func store(
        of request: Request, version: Int, names: [String]
    ) -> Result<String, ProtocolError> {
        if let name = request.store {
            return names.contains(name) ? .success(name) : .failure(unknown(name, names))
        }
        if names.count == 1 { return .success(names[0]) }
        if version < ProtocolVersion.stores {
            if names.contains(defaultStore) { return .success(defaultStore) }
            return .failure(
                ProtocolError(
                    .unknownStore,
                    "a version-1 client is served the store \"\(defaultStore)\", which this daemon does not have; "
                        + "stores: \(list(names)) (speak version 2 and name one)",
                    stores: shown(names)))
        }
        return .failure(
            ProtocolError(
                .storeRequired, "this daemon serves \(names.count) stores; name one with \"store\": \(list(names))",
                stores: shown(names)))
    }

    /// The stores a `stores` list names (sorted, each once), and whether it was `["*"]`.
    public static func stores(
        _ asked: [String], names: [String]
    ) -> Result<(names: [String], all: Bool), ProtocolError> {
        if asked.contains(everyStore) {
            guard asked.count == 1 else {
                return .failure(
                    ProtocolError(
                        .invalidArgument, "\"*\" must be the only entry of \"stores\"", stores: shown(names)))
            }
            return .success((names, true))
        }
        guard !asked.isEmpty else {
            return .failure(ProtocolError(.invalidArgument, "\"stores\" is empty; name stores or use [\"*\"]"))
        }
        for name in asked where !names.contains(name) { return .failure(unknown(name, names)) }
        return .success((Array(Set(asked)).sorted(), false))
    }

    static func unknown(_ name: String, _ names: [String]) -> ProtocolError {
        let near = shown(names, near: name)
        return ProtocolError(
            .unknownStore, "no store named \"\(name)\"; stores: \(list(near, of: names))", stores: near)
    }

    /// `shown` of `names` spelled out, with how many are not when some are left out.
    static func list(_ shown: [String], of names: [String]) -> String {
        guard !names.isEmpty else { return "none" }
        let spelled = shown.joined(separator: ", ")
        guard shown.count < names.count else { return spelled }
        return spelled + " and \(names.count - shown.count) more (booksctl stores lists them all)"
    }

    static func list(_ names: [String]) -> String { list(shown(names), of: names) }

    /// At most ``maxListedNames`` of the sorted `names`, sorted: all of them when they fit; else
    /// those nearest to `name` in sort order (the ones sharing its longest prefix first), or the
    /// first ones without a name. Costs a binary search, not a pass over every name.
    static func shown(_ names: [String], near name: String? = nil) -> [String] {
        guard names.count > maxListedNames else { return names }
        guard let name else { return Array(names.prefix(maxListedNames)) }
        var low = 0
        var high = names.count
        while low < high {
            let middle = (low + high) / 2
            if names[middle] < name { low = middle + 1 } else { high = middle }
        }
        var start = max(0, low - maxListedNames)
        var end = min(names.count, low + maxListedNames)
        let shared = { (candidate: String) in zip(candidate.utf8, name.utf8).prefix { $0 == $1 }.count }
        // Narrow the window of 2 × max around the insertion point to max names, dropping from
        // the side whose end shares less of the name.
        while end - start > maxListedNames {
            if shared(names[start]) <= shared(names[end - 1]) { start += 1 } else { end -= 1 }
        }
        return Array(names[start..<end])
    }
}
