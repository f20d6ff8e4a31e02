import BooksProtocol

extension Reconciler: SocketServerDelegate {
    public func server(_ server: SocketServer, didReceive request: Request, from connection: ConnectionID,
                       peer: PeerCredentials) {
        handle(request, from: connection, peer: peer)
    }

    public func serverHelloInfo(_ server: SocketServer) -> (epoch: String, seq: UInt64) {
        position
    }

    public func server(_ server: SocketServer, connectionClosed connection: ConnectionID) {
        connectionClosed()
    }
}
