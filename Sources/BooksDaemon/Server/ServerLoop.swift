import BooksCore
import BooksProtocol
import CLinux
import Glibc

/// The epoll loop of a `SocketServer`: all socket I/O and all connection state live here.
///
/// The loop is spread over files by topic: this one (the loop, timers, epoll helpers),
/// `+Accept` (new connections, the per-uid limit), `+Connections` (reading, writing, carrying
/// out the state machines' actions, closing), `+Commands` (commands from other threads:
/// replies, subscriptions, broadcasts, shutdown), `+Limits` (the idle timeout, the budget for
/// unfinished lines) and `+PendingInput` (`deliverPendingInput`).
///
/// Safety of `@unchecked Sendable`: an instance is created by `SocketServer.start`, handed to the
/// server thread (`DedicatedThread` "booksd-server"), and from then on every stored property is
/// read and written only by that thread (other threads talk to it exclusively through the
/// Mutex-guarded `CommandChannel` and read `SocketServer.statistics` through its own Mutex).
final class ServerLoop: @unchecked Sendable {
    static let listenTag = UInt64.max
    static let wakeTag = UInt64.max - 1
    static let readChunk = 64 * 1024

    let server: SocketServer
    let delegate: any SocketServerDelegate
    let configuration: SocketServerConfiguration
    let channel: CommandChannel
    let epollFD: Int32
    var listenFD: Int32
    var connections: [UInt64: Connection] = [:]
    var helloDeadlines: [(deadline: ContinuousClock.Instant, id: UInt64)] = []
    var helloHead = 0
    /// Idle-timeout checks, in deadline order: at most one per connection (see `+Limits`).
    var idleChecks: [(deadline: ContinuousClock.Instant, id: UInt64)] = []
    var idleHead = 0
    /// Open connections per peer uid (for `maxClientsPerUID`).
    var connectionsPerUID: [uid_t: Int] = [:]
    /// Bytes of unfinished request lines held for all connections (`partialLineBudgetBytes`).
    var unfinishedLineBytes = 0
    /// The time after the last `epoll_wait` returned: when this iteration's I/O happens.
    var loopNow: ContinuousClock.Instant
    var nextID: UInt64 = 1
    var subscriberCount = 0
    /// The connections following each store (what a broadcast visits).
    var subscribers = StoreSubscribers()
    var acceptResumeAt: ContinuousClock.Instant?
    var shutdownDeadline: ContinuousClock.Instant?
    /// Per store, the position of the last broadcast or heartbeat (for the shutdown notice).
    var lastPositions: [String: (epoch: String, seq: UInt64)] = [:]
    /// Callers of `deliverPendingInput` still waiting (see `ServerLoop+PendingInput`).
    var inputWaits: [PendingInputWait] = []
    let readBuffer: UnsafeMutableRawBufferPointer
    let clock = ContinuousClock()
    /// The fan-out helper thread (see `sendDirectly`), once a broadcast was large enough.
    var sender: ParallelSender?
    var senderFailed = false
    /// Direct sends of the broadcast in progress (empty between broadcasts; storage reused).
    var directSends = DirectSendBatch()

    init(
        server: SocketServer, delegate: any SocketServerDelegate, configuration: SocketServerConfiguration,
        channel: CommandChannel, listenFD: Int32
    ) throws(SocketServerError) {
        self.server = server
        self.delegate = delegate
        self.configuration = configuration
        self.channel = channel
        self.listenFD = listenFD
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard ep >= 0 else { throw .systemCall("epoll_create1", errno: errno) }
        epollFD = ep
        readBuffer = .allocate(byteCount: ServerLoop.readChunk, alignment: 16)
        loopNow = clock.now
        guard register(listenFD, events: EPOLLIN.rawValue, tag: ServerLoop.listenTag),
            register(channel.wakeFD, events: EPOLLIN.rawValue, tag: ServerLoop.wakeTag)
        else {
            let err = errno
            Glibc.close(ep)
            readBuffer.deallocate()
            throw .systemCall("epoll_ctl", errno: err)
        }
    }

    deinit { readBuffer.deallocate() }

    // MARK: Loop

    /// Runs until shutdown completes (every connection closed, or the shutdown deadline passed).
    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = nextTimeout()
            let n = events.withUnsafeMutableBufferPointer {
                epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout)
            }
            if n < 0 && errno != EINTR { break }
            loopNow = clock.now
            for i in 0..<max(0, Int(n)) {
                let tag = events[i].data.u64
                let flags = events[i].events
                switch tag {
                case ServerLoop.wakeTag: handleCommands()
                case ServerLoop.listenTag: acceptConnections()
                default:
                    guard let connection = connections[tag] else { continue }  // closed earlier in this batch
                    handleEvent(flags, on: connection)
                }
            }
            handleTimers()
            if !inputWaits.isEmpty { checkInputWaits() }
            if let deadline = shutdownDeadline, connections.isEmpty || clock.now >= deadline { break }
        }
        finish()
    }

    private func nextTimeout() -> Int32 {
        var next: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant?) {
            guard let instant else { return }
            if next == nil || instant < next! { next = instant }
        }
        if helloHead < helloDeadlines.count { consider(helloDeadlines[helloHead].deadline) }
        if idleHead < idleChecks.count { consider(idleChecks[idleHead].deadline) }
        consider(acceptResumeAt)
        consider(shutdownDeadline)
        for wait in inputWaits { consider(wait.deadline) }
        guard let next else { return -1 }
        let remaining = clock.now.duration(to: next)
        if remaining <= .zero { return 0 }
        let (s, atto) = remaining.components
        let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: ms)
    }

    private func handleTimers() {
        let now = clock.now
        while helloHead < helloDeadlines.count, helloDeadlines[helloHead].deadline <= now {
            let id = helloDeadlines[helloHead].id
            helloHead += 1
            if let connection = connections[id] {
                perform(connection.machine.helloTimeoutElapsed(), on: connection)
            }
        }
        if helloHead > 1024 && helloHead * 2 > helloDeadlines.count {
            helloDeadlines.removeFirst(helloHead)
            helloHead = 0
        }
        checkIdleConnections(now: now)
        if let resume = acceptResumeAt, resume <= now { resumeAccepting() }
    }

    /// Closes every connection, the command channel, the listener and the epoll instance.
    private func finish() {
        sender?.stop()
        sender = nil
        for connection in Array(connections.values) { close(connection) }
        for wait in inputWaits { wait.barrier.finish(delivered: false) }
        inputWaits = []
        // Commands posted too late are dropped; a `deliverPendingInput` caller learns it at once.
        for case .deliverPendingInput(let barrier, _) in channel.close() { barrier.finish(delivered: false) }
        closeListener()
        Glibc.close(epollFD)
    }

    // MARK: epoll helpers

    func register(_ fd: Int32, events: UInt32, tag: UInt64) -> Bool {
        var event = epoll_event()
        event.events = events
        event.data.u64 = tag
        return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0
    }

    func modify(_ fd: Int32, events: UInt32, tag: UInt64) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = tag
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }
}
