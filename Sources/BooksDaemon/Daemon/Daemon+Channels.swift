/// Composing each store's channel chain (see `StoreChannels`), once, before its engine is made.
extension Daemon {
    /// The chain of store `name` on `server`: its `StoreChannel`, the HTTP stage when HTTP is on,
    /// and with NATS on the replica stage for a replica (configured, or marked by the replica
    /// folder before it adds the store) or else the NATS stage for a store NATS can name. The
    /// NATS links, the replica links and the registry bind what the stages need later.
    func storeChannels(_ name: StoreName, server: SocketServer) -> StoreChannels {
        let engine = EnginePort()
        let local = StoreChannel(store: name.rawValue, server: server) { engine.feedPosition }
        var channel = httpChannel(local, store: name.rawValue)
        if configuration.nats.isEnabled {
            if configuration.replicaStores.contains(name) || current.nats?.isReplica(name) == true {
                channel = ReplicaChannelRouter(local: channel)
            } else if NATSStoreLinks.problem(with: name) == nil {
                channel = NATSChannelRouter(local: channel)
            }
        }
        return StoreChannels(channel: channel, engine: engine)
    }
}
