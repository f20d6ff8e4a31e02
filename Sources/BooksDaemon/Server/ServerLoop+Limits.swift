/// Limits across connections: the per-uid counts.
extension ServerLoop {
    // MARK: Bookkeeping at close

    /// Removes a closed connection from the per-uid counts.
    func forget(_ connection: Connection) {
        let uid = connection.peer.uid
        if let open = connectionsPerUID[uid] {
            if open <= 1 { connectionsPerUID[uid] = nil } else { connectionsPerUID[uid] = open - 1 }
        }
    }
}
