import BooksProtocol

/// The `shutdown` notice of a subscriber: one event per store it follows, at that store's position.
extension ServerLoop {
    func shutdownNotice(for machine: ConnectionStateMachine, reason: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for store in machine.subscriptions.stores {
            // The delegate's position: `lastPositions` is only known here after a broadcast or
            // heartbeat, and a daemon stopped before either must not announce epoch "".
            let known = delegate.serverPosition(server, store: store) ?? delegate.serverHelloInfo(server)
            let seen = lastPositions[store]
            let seq = seen.map { $0.epoch == known.epoch ? max($0.seq, known.seq) : known.seq } ?? known.seq
            let tagged = machine.namesStores && !store.isEmpty
            bytes += MessageEncoder.encode(
                Event(event: .shutdown, epoch: known.epoch, seq: seq, reason: reason, store: tagged ? store : nil))
        }
        return bytes
    }
}
