import BooksNATS
import Glibc

/// Wiring of the replicas (`--replica NAME=PATH`, `replica NAME = PATH`): each is served like any
/// store (its engine, watcher, socket), but instead of publishing it follows the owner's stream
/// and sends its edits to the owner (`ReplicaLink`).
extension Daemon {
    /// Refuses replicas (and a replica folder) without `nats_url`, creates a replica's missing
    /// file empty (its books then come from the owner) and a missing replica folder.
    func prepareReplicaFiles() throws(ReplicaError) {
        let replicas = configuration.effectiveStores.filter { configuration.replicaStores.contains($0.name) }
        let folder = configuration.replicaFolder
        guard !replicas.isEmpty || folder != nil else { return }
        guard configuration.nats.isEnabled else {
            throw .needsNATS(replicas.map(\.name.rawValue) + (folder.map { ["folder \($0)"] } ?? []))
        }
        for spec in replicas { try ReplicaFiles.create(spec) }
        if let folder, mkdir(folder, 0o755) != 0, errno != EEXIST { throw .cannotCreate(path: folder, errno: errno) }
    }

    /// Attaches a `ReplicaLink` to every replica's engine and restores what its subscribers resume
    /// from, before the socket serves clients (started by `startNATS`; a record that cannot be read
    /// here fails `start` there, with its error, as before).
    func attachReplicas(_ registry: StoreRegistry, connection: NATSConnection) {
        var links: [ReplicaLink] = []
        for engine in registry.engines where configuration.replicaStores.contains(engine.storeName) {
            let link = ReplicaLink(
                engine: engine, connection: connection, prefix: configuration.nats.prefix, logger: logger)
            link.attach()
            links.append(link)
        }
        replicaLinks.withLock { $0 = links }
        for link in links { try? link.restore() }
    }
}

extension Daemon {
    /// Starts the replica folder (`replica_folder`, `--replica-dir`), if configured and NATS is on.
    func startReplicaFolder(_ registry: StoreRegistry, links: NATSStoreLinks?) throws {
        guard let path = configuration.replicaFolder, let links else { return }
        let folder = ReplicaFolder(
            path: path, registry: registry, connection: links.shared.connection, prefix: configuration.nats.prefix,
            logger: logger, willAdd: { links.markReplica($0) })
        try folder.start()
        replicaFolder.withLock { $0 = folder }
    }
}
