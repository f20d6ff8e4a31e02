/// Which connections follow each store: the server thread's index beside the connections'
/// machines, so a broadcast, heartbeat or conflict event of one store visits only the
/// connections that follow that store, never every connection.
///
/// Guarantees: every connection whose machine holds a subscription of a store is in that
/// store's set (it is added when the machine accepts the subscription and removed only when the
/// subscription stops or the connection closes); a connection may stay listed a little longer
/// than its machine follows the store (while draining), which costs a visit, never an event:
/// the machine still decides what it accepts. Server thread only.
struct StoreSubscribers {
    private var byStore: [String: [UInt64: Connection]] = [:]
    private var storesOf: [UInt64: Set<String>] = [:]

    /// The connections following `store` (a copy-on-write view: closing one meanwhile is safe).
    func connections(of store: String) -> [UInt64: Connection].Values {
        (byStore[store] ?? [:]).values
    }

    /// Notes that `connection` follows `store`.
    mutating func add(_ connection: Connection, store: String) {
        byStore[store, default: [:]][connection.id.raw] = connection
        storesOf[connection.id.raw, default: []].insert(store)
    }

    /// Notes that `connection` no longer follows `store` (any store when nil).
    mutating func remove(_ connection: Connection, store: String?) {
        let id = connection.id.raw
        guard let followed = storesOf[id] else { return }
        let gone = store.map { followed.contains($0) ? [$0] : [] } ?? Array(followed)
        for name in gone {
            byStore[name]?[id] = nil
            if byStore[name]?.isEmpty == true { byStore[name] = nil }
        }
        let left = followed.subtracting(gone)
        storesOf[id] = left.isEmpty ? nil : left
    }
}
