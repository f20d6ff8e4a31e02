import BooksProtocol
import CLinux
import Glibc

/// Connection I/O: reading into the state machine, carrying out its actions, writing queued
/// output, and closing. A connection is closed only when its machine says so (`.close`, always
/// its last action) or when the loop ends; every function that may close returns whether the
/// connection is still open, so no caller has to look it up again.
extension ServerLoop {
    func handleEvent(_ flags: UInt32, on connection: Connection) {
        let readable = flags & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        if readable {
            if connection.registeredEvents & EPOLLIN.rawValue != 0 {
                guard readOnce(connection) else { return }
            } else if flags & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                // Not reading (back-pressure or draining) and the peer is gone: nothing left to do.
                perform(connection.machine.peerHungUp(), on: connection)
                return
            }
        }
        if flags & EPOLLOUT.rawValue != 0 { flush(connection) }
    }

    /// One `recv` into the machine. Returns whether the connection is still open.
    private func readOnce(_ connection: Connection) -> Bool {
        while true {
            let n = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if n > 0 {
                connection.lastActivity = loopNow
                if !inputWaits.isEmpty { noteInput(n, on: connection) }
                let actions = connection.machine.bytesReceived(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                noteUnfinishedLine(of: connection)
                guard perform(actions, on: connection) else { return false }
                return unfinishedLineBytes <= configuration.partialLineBudgetBytes
                    || enforceLineBudget(reading: connection)
            }
            if n == 0 { return perform(connection.machine.endOfInput(), on: connection) }
            switch errno {
            case EINTR: continue
            case EAGAIN: return true
            case let code:  // ECONNRESET and friends: nobody is left to read our output
                return perform(connection.machine.socketFailed(errno: code), on: connection)
            }
        }
    }

    /// Carries out the machine's actions in order. Returns false once the connection is closed
    /// (the machine makes `.close` its last action; a write error closes through the machine too).
    @discardableResult
    func perform(_ actions: [ConnectionStateMachine.Action], on connection: Connection) -> Bool {
        // Every `.send` is queued before writing starts: writing reports drained bytes to the
        // machine, which may emit more output (the next page of a stream) that must come after.
        var flushDue = false
        for action in actions {
            switch action {
            case .send(let bytes):
                // With output already waiting, the socket was full: EPOLLOUT will resume writing.
                if connection.output.isEmpty { flushDue = true }
                connection.output.append(bytes)
            case .deliver(let request):
                delegate.server(
                    server, didReceive: request, from: connection.id, peer: connection.peer,
                    version: connection.machine.version, following: &connection.following)
            case .answerHello(let id):
                let info = delegate.serverHelloInfo(server)
                let reply = ConnectionStateMachine.helloReply(
                    id: id, serverName: configuration.serverName,
                    epoch: info.epoch, seq: info.seq, version: connection.machine.version)
                guard
                    perform(
                        connection.machine.enqueue(MessageEncoder.encode(reply), kind: .unsolicited),
                        on: connection)
                else { return false }
            case .pauseReading, .resumeReading:
                updateInterest(connection)
            case .close(let reason):
                switch reason {
                case .protocolViolation, .helloTimeout: server.updateStatistics { $0.violations += 1 }
                case .lagged: server.updateStatistics { $0.lagged += 1 }
                case .idleTimeout: server.updateStatistics { $0.idleClosed += 1 }
                case .peerClosed, .shutdown, .ioError: break
                }
                close(connection)
                return false
            }
        }
        return flushDue ? flush(connection) : true
    }

    /// Writes queued output until the socket would block; keeps EPOLLOUT registered while
    /// output remains. Never blocks. Returns whether the connection is still open.
    @discardableResult
    func flush(_ connection: Connection) -> Bool {
        var written = 0
        while let n = sendFront(of: connection) {
            if n > 0 {
                written += n
                connection.lastActivity = loopNow
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && errno == EAGAIN {
                break
            } else {
                return perform(connection.machine.socketFailed(errno: n < 0 ? errno : EPIPE), on: connection)
            }
        }
        return afterWriting(written, on: connection)
    }

    /// Hands the front of `connection`'s queue to the kernel without blocking (`MSG_DONTWAIT`, no
    /// `SIGPIPE`) and drops from the queue what it took: `send`'s result (-1 with `errno` set);
    /// nil when nothing is queued.
    func sendFront(of connection: Connection) -> Int? {
        guard let chunk = connection.output.first else { return nil }
        let offset = connection.output.offset
        let n = chunk.withUnsafeBytes { buf in
            send(
                connection.fd, buf.baseAddress! + offset, buf.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        if n > 0 { connection.output.consume(n) }
        return n
    }

    /// After `written` bytes went out: tells the machine (which may release requests or close)
    /// and updates the epoll interest. Returns whether the connection is still open.
    @discardableResult
    func afterWriting(_ written: Int, on connection: Connection) -> Bool {
        if written > 0 {
            let actions = connection.machine.drained(written)
            if !actions.isEmpty, !perform(actions, on: connection) { return false }
        }
        updateInterest(connection)
        return true
    }

    func updateInterest(_ connection: Connection) {
        var events: UInt32 = 0
        if !connection.machine.isReadingPaused { events |= EPOLLIN.rawValue }
        if !connection.output.isEmpty { events |= EPOLLOUT.rawValue }
        guard events != connection.registeredEvents else { return }
        connection.registeredEvents = events
        modify(connection.fd, events: events, tag: connection.id.raw)
    }

    /// Writes what the socket takes right now, closes it, and tells the delegate if it knew the
    /// connection. Called for the machine's `.close` and when the loop ends.
    func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.id.raw) != nil else { return }
        // Best effort: hand the kernel what it takes right now (an error line, a shutdown notice).
        while let n = sendFront(of: connection), n > 0 {}
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, connection.fd, nil)
        Glibc.close(connection.fd)
        forget(connection)
        subscribers.remove(connection, store: nil)
        if connection.machine.state.phase == .subscribed { subscriberCount -= 1 }
        server.updateStatistics {
            $0.clients = connections.count
            $0.subscribers = subscriberCount
        }
        if acceptResumeAt != nil { resumeAccepting() }
        if connection.machine.isIntroduced {
            delegate.server(server, connectionClosed: connection.id, following: connection.following)
        }
    }
}
