import Glibc

/// How many stores the registry serves at most: `max_stores`, and no more than the descriptor
/// limit leaves once descriptors are kept for clients and the daemon itself, so a folder of
/// thousands of files can never take the descriptors new clients need.
extension StoreRegistry {
    /// Descriptors one store holds while it serves (its locked state directory and its journal).
    public static let descriptorsPerStore = 2
    /// Descriptors kept for the daemon itself (listener, epoll, inotify, log, NATS, loading).
    public static let daemonDescriptors = 64

    /// The limit on the number of stores, and why it is that number.
    public struct StoreLimit: Sendable, Hashable {
        /// The most stores served at once.
        public var count: Int
        /// What sets it, for the log line of a refused store.
        public var reason: String
    }

    /// The store limit of `configuration` under the process's `RLIMIT_NOFILE` (its soft limit,
    /// raised to the hard one first, as the socket server does): `max_stores`, or fewer when
    /// `(RLIMIT_NOFILE − min(max_clients, RLIMIT_NOFILE / 2) − daemonDescriptors) / descriptorsPerStore`
    /// is smaller (at least 1).
    public static func storeLimit(_ configuration: DaemonConfiguration) -> StoreLimit {
        UnixListener.raiseDescriptorLimit()
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        let descriptors = getrlimit(resource, &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        let clients = min(configuration.maxClients, descriptors / 2)
        let byDescriptors = max(1, (descriptors - clients - daemonDescriptors) / descriptorsPerStore)
        guard byDescriptors < configuration.maxStores else {
            return StoreLimit(count: configuration.maxStores, reason: "max_stores \(configuration.maxStores)")
        }
        return StoreLimit(
            count: byDescriptors,
            reason: "RLIMIT_NOFILE \(descriptors) leaves descriptors for \(byDescriptors) stores after \(clients) "
                + "kept for clients (max_clients) and \(daemonDescriptors) for the daemon (max_stores "
                + "\(configuration.maxStores)); raise LimitNOFILE= to serve more")
    }
}
