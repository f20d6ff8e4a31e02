import BooksProtocol
import CLinux
import Glibc

/// Accepting connections: the listening socket, the `maxClients` and `maxClientsPerUID` limits
/// (one uid holds at most half of `maxClients`, see `effectiveMaxClientsPerUID`)
/// (refused with a `limit-exceeded` line naming the limit), pausing while the process is out of
/// descriptors, and closing the listener.
extension ServerLoop {
    /// Accepts up to `limit` connections waiting in the listen backlog (fewer when it runs dry).
    func acceptConnections(limit: Int = 128) {
        for _ in 0..<limit {
            guard listenFD >= 0 else { return }
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
                refuse(fd, "too many clients (limit \(configuration.maxClients))")
                continue
            }
            var cred = books_ucred()
            let peer =
                books_peer_credentials(fd, &cred) == 0
                ? PeerCredentials(
                    pid: cred.pid, uid: cred.uid, gid: cred.gid, user: UserNames.shared.name(of: cred.uid),
                    program: processName(pid: cred.pid))
                : PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
            let perUID = configuration.effectiveMaxClientsPerUID
            if perUID > 0, connectionsPerUID[peer.uid, default: 0] >= perUID,
                !configuration.uidLimitExemptions.contains(peer.uid)
            {
                server.updateStatistics {
                    $0.rejected += 1
                    $0.rejectedPerUID += 1
                }
                let limit =
                    perUID == configuration.maxClientsPerUID
                    ? "max_clients_per_uid \(perUID)"
                    : "max_clients_per_uid \(configuration.maxClientsPerUID), at most half of max_clients "
                        + "\(configuration.maxClients): \(perUID)"
                refuse(fd, "too many connections from uid \(peer.uid) (\(limit))")
                continue
            }
            let id = nextID
            nextID += 1
            let machine = ConnectionStateMachine(
                maxRequestBytes: configuration.maxRequestBytes,
                queueLimit: configuration.clientQueueBytes,
                maxPendingRequests: configuration.maxPendingRequests,
                pageBudget: configuration.pageBudgetBytes)
            guard register(fd, events: EPOLLIN.rawValue, tag: id) else {
                Glibc.close(fd)
                continue
            }
            let now = clock.now
            connections[id] = Connection(
                id: ConnectionID(raw: id), fd: fd, peer: peer, machine: machine,
                registeredEvents: EPOLLIN.rawValue, now: now)
            connectionsPerUID[peer.uid, default: 0] += 1
            helloDeadlines.append((now + configuration.helloTimeout, id))
            scheduleIdleCheck(id, at: now)
            server.updateStatistics { $0.clients = connections.count }
        }
    }

    /// Sends a `limit-exceeded` error line naming `message` (best effort) and closes `fd`.
    private func refuse(_ fd: Int32, _ message: String) {
        let line = MessageEncoder.encode(Reply.failure(nil, ProtocolError(.limitExceeded, message)))
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        Glibc.close(fd)
    }

    /// Accepts every connection already waiting, then closes the listening socket (and unlinks
    /// the path if the server bound it): later clients are refused by the kernel.
    func stopAccepting() {
        guard listenFD >= 0 else { return }
        if acceptResumeAt == nil { acceptConnections(limit: Int.max) }
        closeListener()
    }

    func pauseAccepting(until instant: ContinuousClock.Instant) {
        guard acceptResumeAt == nil, listenFD >= 0 else { return }
        acceptResumeAt = instant
        modify(listenFD, events: 0, tag: ServerLoop.listenTag)
    }

    func resumeAccepting() {
        guard acceptResumeAt != nil else { return }
        acceptResumeAt = nil
        if listenFD >= 0 { modify(listenFD, events: EPOLLIN.rawValue, tag: ServerLoop.listenTag) }
    }

    /// Removes the listening socket from epoll and closes it. Idempotent.
    func closeListener() {
        guard listenFD >= 0 else { return }
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil)
        server.closeListener()
        listenFD = -1
        acceptResumeAt = nil
    }
}
