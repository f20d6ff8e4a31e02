/// The server thread's record of one client socket: its descriptor, its output queue and its
/// protocol state machine (which alone knows whether it said hello, subscribed or is closing).
/// Touched only by the server thread.
final class Connection {
    let id: ConnectionID
    let fd: Int32
    let peer: PeerCredentials
    var machine: ConnectionStateMachine
    var output = OutputQueue()
    /// The epoll interest currently registered.
    var registeredEvents: UInt32

    init(id: ConnectionID, fd: Int32, peer: PeerCredentials, machine: ConnectionStateMachine, registeredEvents: UInt32) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.machine = machine
        self.registeredEvents = registeredEvents
    }
}
