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
    /// When bytes were last read from or written to the socket (the loop's time of that
    /// iteration); the idle timeout counts from here.
    var lastActivity: ContinuousClock.Instant
    /// The machine's unfinished-line bytes as last added to the loop's total.
    var unfinishedLineBytes = 0
    /// What it follows of the named stores (lent to the delegate with each request).
    var following = StoreFollowing()

    init(
        id: ConnectionID, fd: Int32, peer: PeerCredentials, machine: ConnectionStateMachine, registeredEvents: UInt32,
        now: ContinuousClock.Instant
    ) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.machine = machine
        self.registeredEvents = registeredEvents
        lastActivity = now
    }
}
