import BooksCore
import BooksProtocol
import CLinux
import Glibc

/// The epoll loop of a `SocketServer`: all socket I/O and all connection state live here.
///
/// Safety of `@unchecked Sendable`: an instance is created by `SocketServer.start`, handed to the
/// server thread (`DedicatedThread` "booksd-server"), and from then on every stored property is read and
/// written only by that thread (other threads talk to it exclusively through the Mutex-guarded
/// `CommandChannel` and read `SocketServer.statistics` through its own Mutex).
final class ServerLoop: @unchecked Sendable {
    private static let listenTag = UInt64.max
    private static let wakeTag = UInt64.max - 1
    private static let readChunk = 64 * 1024

    private let server: SocketServer
    private let delegate: any SocketServerDelegate
    private let configuration: SocketServerConfiguration
    private let channel: CommandChannel
    private let epollFD: Int32
    private var listenFD: Int32
    private var connections: [UInt64: Connection] = [:]
    private var helloDeadlines: [(deadline: ContinuousClock.Instant, id: UInt64)] = []
    private var helloHead = 0
    private var nextID: UInt64 = 1
    private var subscriberCount = 0
    private var acceptResumeAt: ContinuousClock.Instant?
    private var shutdownDeadline: ContinuousClock.Instant?
    private var epoch = ""
    private var lastSeq: UInt64 = 0
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let clock = ContinuousClock()
    /// The fan-out helper thread (see `sendDirectly`), once a broadcast was large enough.
    private var sender: ParallelSender?
    private var senderFailed = false

    init(server: SocketServer, delegate: any SocketServerDelegate, configuration: SocketServerConfiguration,
         channel: CommandChannel, listenFD: Int32) throws(SocketServerError) {
        self.server = server
        self.delegate = delegate
        self.configuration = configuration
        self.channel = channel
        self.listenFD = listenFD
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard ep >= 0 else { throw .systemCall("epoll_create1", errno: errno) }
        epollFD = ep
        readBuffer = .allocate(byteCount: ServerLoop.readChunk, alignment: 16)
        guard register(listenFD, events: EPOLLIN.rawValue, tag: ServerLoop.listenTag),
              register(channel.wakeFD, events: EPOLLIN.rawValue, tag: ServerLoop.wakeTag) else {
            let err = errno
            Glibc.close(ep)
            readBuffer.deallocate()
            throw .systemCall("epoll_ctl", errno: err)
        }
    }

    deinit { readBuffer.deallocate() }

    // MARK: Loop

    func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let timeout = nextTimeout()
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeout) }
            if n < 0 && errno != EINTR { break }
            for i in 0..<max(0, Int(n)) {
                let tag = events[i].data.u64
                let flags = events[i].events
                switch tag {
                case ServerLoop.wakeTag: handleCommands()
                case ServerLoop.listenTag: acceptConnections()
                default:
                    guard let connection = connections[tag] else { continue }
                    handleEvent(flags, on: connection)
                }
            }
            handleTimers()
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
        consider(acceptResumeAt)
        consider(shutdownDeadline)
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
        if let resume = acceptResumeAt, resume <= now { resumeAccepting() }
    }

    // MARK: Accept

    private func acceptConnections() {
        for _ in 0..<128 {
            let fd = books_accept_nonblocking(listenFD)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    pauseAccepting(until: clock.now + .milliseconds(100))
                    return
                default: return
                }
            }
            server.updateStatistics { $0.accepted += 1 }
            guard connections.count < configuration.maxClients else {
                server.updateStatistics { $0.rejected += 1 }
                let line = MessageEncoder.encode(Reply.failure(nil, ProtocolError(
                    .limitExceeded, "too many clients (limit \(configuration.maxClients))")))
                _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                Glibc.close(fd)
                continue
            }
            var cred = books_ucred()
            let peer = books_peer_credentials(fd, &cred) == 0
                ? PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid)
                : PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
            let id = nextID
            nextID += 1
            let machine = ConnectionStateMachine(maxRequestBytes: configuration.maxRequestBytes,
                                                 queueLimit: configuration.clientQueueBytes,
                                                 maxPendingRequests: configuration.maxPendingRequests)
            guard register(fd, events: EPOLLIN.rawValue, tag: id) else {
                Glibc.close(fd)
                continue
            }
            connections[id] = Connection(id: ConnectionID(raw: id), fd: fd, peer: peer, machine: machine,
                                         registeredEvents: EPOLLIN.rawValue)
            helloDeadlines.append((clock.now + configuration.helloTimeout, id))
            server.updateStatistics { $0.clients = connections.count }
        }
    }

    private func pauseAccepting(until instant: ContinuousClock.Instant) {
        guard acceptResumeAt == nil, listenFD >= 0 else { return }
        acceptResumeAt = instant
        modify(listenFD, events: 0, tag: ServerLoop.listenTag)
    }

    private func resumeAccepting() {
        guard acceptResumeAt != nil else { return }
        acceptResumeAt = nil
        if listenFD >= 0 { modify(listenFD, events: EPOLLIN.rawValue, tag: ServerLoop.listenTag) }
    }

    // MARK: Connection I/O

    private func handleEvent(_ flags: UInt32, on connection: Connection) {
        let readable = flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        if readable {
            if connection.registeredEvents & EPOLLIN.rawValue != 0 {
                readOnce(connection)
            } else if flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                // Not reading (back-pressure or closing) and the peer is gone: nothing left to do.
                close(connection)
                return
            }
        }
        if connections[connection.id.raw] != nil, flags & EPOLLOUT.rawValue != 0 {
            flush(connection)
        }
    }

    private func readOnce(_ connection: Connection) {
        while true {
            let n = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if n > 0 {
                let actions = connection.machine.bytesReceived(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                perform(actions, on: connection)
                return
            }
            if n == 0 {
                perform(connection.machine.endOfInput(), on: connection)
                return
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: return
            default: // ECONNRESET and friends: nobody is left to read our output
                close(connection)
                return
            }
        }
    }

    /// Carries out the machine's actions in order; stops after a close.
    private func perform(_ actions: [ConnectionStateMachine.Action], on connection: Connection) {
        for action in actions {
            switch action {
            case .send(let bytes):
                // With output already waiting, the socket was full: EPOLLOUT will resume writing.
                let wasEmpty = connection.output.isEmpty
                connection.output.append(bytes)
                guard wasEmpty else { continue }
                flush(connection)
                if connections[connection.id.raw] == nil { return }
            case .deliver(let request):
                delegate.server(server, didReceive: request, from: connection.id, peer: connection.peer)
            case .answerHello(let id):
                let info = delegate.serverHelloInfo(server)
                connection.introduced = true
                let reply = ConnectionStateMachine.helloReply(id: id, serverName: configuration.serverName,
                                                              epoch: info.epoch, seq: info.seq)
                perform(connection.machine.enqueue(MessageEncoder.encode(reply), kind: .unsolicited), on: connection)
                if connections[connection.id.raw] == nil { return }
            case .pauseReading, .resumeReading:
                updateInterest(connection)
            case .close(let reason):
                switch reason {
                case .protocolViolation, .helloTimeout: server.updateStatistics { $0.violations += 1 }
                case .lagged: server.updateStatistics { $0.lagged += 1 }
                default: break
                }
                close(connection)
                return
            }
        }
    }

    /// Writes queued output until the socket would block; keeps EPOLLOUT registered while
    /// output remains. Never blocks.
    private func flush(_ connection: Connection) {
        var written = 0
        var failed: Int32?
        while let chunk = connection.output.first {
            let offset = connection.output.offset
            let n = chunk.withUnsafeBytes { buf in
                send(connection.fd, buf.baseAddress! + offset, buf.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n > 0 {
                connection.output.consume(n)
                written += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && errno == EAGAIN {
                break
            } else {
                failed = errno
                break
            }
        }
        if failed != nil {
            close(connection)
            return
        }
        afterWriting(written, on: connection)
    }

    /// After `written` bytes went out: tells the machine, closes a drained connection while
    /// shutting down, and updates the epoll interest.
    private func afterWriting(_ written: Int, on connection: Connection) {
        if written > 0 {
            let actions = connection.machine.drained(written)
            if !actions.isEmpty { perform(actions, on: connection) }
            if connections[connection.id.raw] == nil { return }
        }
        if shutdownDeadline != nil && connection.output.isEmpty {
            close(connection)
            return
        }
        updateInterest(connection)
    }

    private func updateInterest(_ connection: Connection) {
        guard connections[connection.id.raw] != nil else { return }
        var events: UInt32 = 0
        if connection.machine.state != .closing && !connection.machine.isReadingPaused { events |= EPOLLIN.rawValue }
        if !connection.output.isEmpty { events |= EPOLLOUT.rawValue }
        guard events != connection.registeredEvents else { return }
        connection.registeredEvents = events
        modify(connection.fd, events: events, tag: connection.id.raw)
    }

    private func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id.raw) != nil else { return }
        // Best effort: hand the kernel what it takes right now (an error line, a shutdown notice).
        while let chunk = connection.output.first {
            let offset = connection.output.offset
            let n = chunk.withUnsafeBytes { buf in
                send(connection.fd, buf.baseAddress! + offset, buf.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            guard n > 0 else { break }
            connection.output.consume(n)
        }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, connection.fd, nil)
        Glibc.close(connection.fd)
        if connection.subscription != nil { subscriberCount -= 1 }
        server.updateStatistics { $0.clients = connections.count; $0.subscribers = subscriberCount }
        if acceptResumeAt != nil { resumeAccepting() }
        if connection.introduced { delegate.server(server, connectionClosed: connection.id) }
    }

    // MARK: Commands

    private func handleCommands() {
        for command in channel.takeAll() { apply(command) }
    }

    private func apply(_ command: ServerCommand) {
        switch command {
        case .send(let id, let bytes):
            guard let connection = connections[id.raw] else { return }
            perform(connection.machine.enqueue(bytes, kind: .reply), on: connection)

        case .startSubscription(let id, let reply, let filter, let initialEvents, let afterSeq):
            guard let connection = connections[id.raw] else { return }
            let wasSubscribed = connection.subscription != nil
            guard connection.machine.subscriptionStarted() else { return }
            connection.subscription = (filter, afterSeq)
            if !wasSubscribed {
                subscriberCount += 1
                server.updateStatistics { $0.subscribers = subscriberCount }
            }
            for (index, bytes) in ([reply] + initialEvents).enumerated() {
                perform(connection.machine.enqueue(bytes, kind: index == 0 ? .reply : .unsolicited), on: connection)
                if connections[id.raw] == nil { return }
            }

        case .stopSubscription(let id, let reply):
            guard let connection = connections[id.raw] else { return }
            if connection.subscription != nil {
                connection.subscription = nil
                connection.machine.subscriptionStopped()
                subscriberCount -= 1
                server.updateStatistics { $0.subscribers = subscriberCount }
            }
            perform(connection.machine.enqueue(reply, kind: .reply), on: connection)

        case .broadcast(let change):
            epoch = change.epoch
            lastSeq = change.seq
            // Encoded once per distinct filter; subscribers mostly share one filter, so the last
            // one is checked before the dictionary (no hashing per subscriber).
            var encoded: [BookFilter: [UInt8]?] = [:]
            var last: (filter: BookFilter, bytes: [UInt8]?)?
            var admitted: [(connection: Connection, bytes: [UInt8])] = []
            for connection in Array(connections.values) {
                guard let subscription = connection.subscription, change.seq > subscription.afterSeq else { continue }
                let bytes: [UInt8]?
                if let last, last.filter == subscription.filter {
                    bytes = last.bytes
                } else if let cached = encoded[subscription.filter] {
                    bytes = cached
                    last = (subscription.filter, cached)
                } else {
                    bytes = MessageEncoder.changeEvent(change, filter: subscription.filter).map(MessageEncoder.encode)
                    encoded[subscription.filter] = .some(bytes)
                    last = (subscription.filter, bytes)
                }
                connection.subscription?.afterSeq = change.seq
                guard let bytes else { continue }
                if connection.output.isEmpty, connection.machine.admitEvent(bytes.count) {
                    admitted.append((connection, bytes))
                } else {
                    enqueueEvent(bytes, on: connection, epoch: change.epoch, seq: change.seq)
                }
            }
            sendDirectly(admitted)

        case .heartbeat(let epoch, let seq):
            self.epoch = epoch
            lastSeq = seq
            let bytes = MessageEncoder.encode(Event(event: .heartbeat, epoch: epoch, seq: seq))
            for connection in Array(connections.values) {
                guard let subscription = connection.subscription, seq >= subscription.afterSeq else { continue }
                enqueueEvent(bytes, on: connection, epoch: epoch, seq: seq)
            }

        case .shutdown(let reason, let deadline):
            beginShutdown(reason: reason, deadline: deadline)

        case .run(let body):
            body()
        }
    }

    /// Writes events the machines admitted (`admitEvent`) straight to the sockets — for many
    /// subscribers, from this thread and the `ParallelSender` thread together — then does each
    /// connection's bookkeeping: what a socket did not take is queued for EPOLLOUT. The common
    /// case of a broadcast to idle subscribers: one `send` each, no queue round trip.
    private func sendDirectly(_ admitted: [(connection: Connection, bytes: [UInt8])]) {
        guard !admitted.isEmpty else { return }
        let results: [Int]
        if admitted.count >= configuration.parallelSendThreshold, let helper = parallelSender() {
            results = helper.send(admitted.map { ($0.connection.fd, $0.bytes) })
        } else {
            results = admitted.map { ParallelSender.sendOnce($0.connection.fd, $0.bytes) }
        }
        for (k, item) in admitted.enumerated() {
            let n = results[k]
            if n < 0 && -n != Int(EAGAIN) && -n != Int(EINTR) {
                close(item.connection)
                continue
            }
            let sent = max(n, 0)
            if sent < item.bytes.count {
                item.connection.output.append(item.bytes)
                if sent > 0 { item.connection.output.consume(sent) }
            }
            afterWriting(sent, on: item.connection)
        }
    }

    /// The fan-out helper, started at the first large broadcast (nil if it cannot start: this
    /// thread then sends alone, and does not try again).
    private func parallelSender() -> ParallelSender? {
        if sender == nil, !senderFailed {
            sender = try? ParallelSender()
            senderFailed = sender == nil
        }
        return sender
    }

    private func enqueueEvent(_ bytes: [UInt8], on connection: Connection, epoch: String, seq: UInt64) {
        let actions = connection.machine.enqueue(bytes, kind: .event) {
            MessageEncoder.encode(Event(event: .resyncRequired, epoch: epoch, seq: seq, reason: "lagged"))
        }
        perform(actions, on: connection)
    }

    private func beginShutdown(reason: String, deadline: ContinuousClock.Instant) {
        guard shutdownDeadline == nil else { return }
        shutdownDeadline = deadline
        if listenFD >= 0 {
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil)
            server.closeListener()
            listenFD = -1
        }
        // The current position from the delegate: `epoch`/`lastSeq` are only known here after a
        // broadcast or heartbeat, and a daemon stopped before either must not announce epoch "".
        let position = delegate.serverHelloInfo(server)
        let notice = MessageEncoder.encode(Event(event: .shutdown, epoch: position.epoch,
                                                 seq: max(position.seq, lastSeq), reason: reason))
        for connection in Array(connections.values) {
            if connection.subscription != nil {
                perform(connection.machine.enqueue(notice, kind: .unsolicited), on: connection)
                guard connections[connection.id.raw] != nil else { continue }
            }
            perform(connection.machine.beginShutdown(), on: connection)
            guard connections[connection.id.raw] != nil else { continue }
            flush(connection)
        }
    }

    private func finish() {
        sender?.stop()
        sender = nil
        for connection in Array(connections.values) { close(connection) }
        _ = channel.close()
        if listenFD >= 0 {
            server.closeListener()
            listenFD = -1
        }
        Glibc.close(epollFD)
    }

    // MARK: epoll helpers

    private func register(_ fd: Int32, events: UInt32, tag: UInt64) -> Bool {
        var event = epoll_event()
        event.events = events
        event.data.u64 = tag
        return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0
    }

    private func modify(_ fd: Int32, events: UInt32, tag: UInt64) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = tag
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }
}
