import BooksProtocol

/// Which store a request is about (pure: the names there are and the request in, a name or the
/// error to answer with out).
///
/// - A named store must exist (`unknown-store`, listing the stores).
/// - No name, version 1: the store `default`, or the only store (else `unknown-store`).
/// - No name, version 2: the only store (else `store-required`, listing the stores).
/// - `stores` (subscribe/unsubscribe): `["*"]` is every store; each name must exist.
public enum StoreResolution {
    /// The name of the store version-1 clients are served when there are several.
    public static let defaultStore = "default"
    /// The wildcard of `stores`: every store, also those added later.
    public static let everyStore = "*"

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
                    stores: names))
        }
        return .failure(
            ProtocolError(
                .storeRequired, "this daemon serves \(names.count) stores; name one with \"store\": \(list(names))",
                stores: names))
    }

    /// The stores a `stores` list names (sorted, each once), and whether it was `["*"]`.
    public static func stores(
        _ asked: [String], names: [String]
    ) -> Result<(names: [String], all: Bool), ProtocolError> {
        if asked.contains(everyStore) {
            guard asked.count == 1 else {
                return .failure(
                    ProtocolError(.invalidArgument, "\"*\" must be the only entry of \"stores\"", stores: names))
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
        ProtocolError(.unknownStore, "no store named \"\(name)\"; stores: \(list(names))", stores: names)
    }

    static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }
}
