import BooksProtocol

/// Until protocol version 2 routes requests by store (issue 13, protocol side): every request
/// goes to the store version-1 clients use — `default`, else the only store.
extension StoreRegistry: SocketServerDelegate {
    /// Hands the request to the primary store's engine; without one (several stores and none
    /// named `default`, or none yet), answers `store-unavailable` naming the stores.
    public func server(
        _ server: SocketServer, didReceive request: Request, from connection: ConnectionID, peer: PeerCredentials
    ) {
        if let engine = primaryEngine {
            engine.server(server, didReceive: request, from: connection, peer: peer)
            return
        }
        let names = names.map(\.rawValue)
        let message =
            names.isEmpty
            ? "no store is served yet"
            : "several stores and none named 'default' (\(names.joined(separator: ", "))): name one (protocol 2)"
        server.send(.failure(request.id, ProtocolError(.storeUnavailable, message)), to: connection)
    }

    /// The primary store's position (an empty epoch at seq 0 without one).
    public func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) {
        primaryEngine?.position ?? ("", 0)
    }

    /// Tells every store (their subscriber counts may have changed).
    public func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {
        for engine in engines { engine.server(server, connectionClosed: connection) }
    }
}
