import BooksNATS
import Glibc

/// Wiring of the replicas (`--replica NAME=PATH`, `replica NAME = PATH`): each is served like any
/// store (its engine, watcher, socket), but instead of publishing it follows the owner's stream
/// and sends its edits to the owner (`ReplicaLink`).
extension Daemon {
    /// Refuses replicas without `nats_url`, and creates a replica's missing file empty (its
    /// books then come from the owner).
    func prepareReplicaFiles() throws(ReplicaError) {
        let replicas = configuration.effectiveStores.filter { configuration.replicaStores.contains($0.name) }
        guard !replicas.isEmpty else { return }
        guard configuration.nats.isEnabled else { throw .needsNATS(replicas.map(\.name.rawValue)) }
        for spec in replicas {
            let fd = open(spec.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw .cannotCreate(path: spec.path, errno: errno)
            }
            if spec.format == .json { _ = write(fd, "[]\n", 3) }
            fsync(fd)
            close(fd)
        }
    }

    /// Attaches a `ReplicaLink` to every replica's engine (started by `startNATS`).
    func attachReplicas(_ registry: StoreRegistry, connection: NATSConnection) {
        var links: [ReplicaLink] = []
        for engine in registry.engines where configuration.replicaStores.contains(engine.storeName) {
            let link = ReplicaLink(
                engine: engine, connection: connection, prefix: configuration.nats.prefix, logger: logger)
            link.attach()
            links.append(link)
        }
        replicaLinks.withLock { $0 = links }
    }
}
