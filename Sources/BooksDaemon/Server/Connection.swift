import BooksCore

/// The server thread's record of one client socket. Touched only by the server thread.
final class Connection {
    let id: ConnectionID
    let fd: Int32
    let peer: PeerCredentials
    var machine: ConnectionStateMachine
    var output = OutputQueue()
    /// The epoll interest currently registered.
    var registeredEvents: UInt32
    /// True once `hello` was answered (the delegate knows this connection).
    var introduced = false
    /// The subscription's filter and the last seq already covered by its initial events.
    var subscription: (filter: BookFilter, afterSeq: UInt64)?

    init(id: ConnectionID, fd: Int32, peer: PeerCredentials, machine: ConnectionStateMachine, registeredEvents: UInt32) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.machine = machine
        self.registeredEvents = registeredEvents
    }
}
