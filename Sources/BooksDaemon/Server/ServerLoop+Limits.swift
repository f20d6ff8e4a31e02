/// Limits across connections: the idle timeout of unsubscribed connections (one deadline queue,
/// no timer per connection) and the per-uid counts.
extension ServerLoop {
    // MARK: Idle timeout

    /// Queues the idle check of a new connection, `idleTimeout` after `now` (no-op when off).
    func scheduleIdleCheck(_ id: UInt64, at now: ContinuousClock.Instant) {
        guard let timeout = configuration.idleTimeout else { return }
        idleChecks.append((now + timeout, id))
    }

    /// Runs the idle checks that are due. A connection without traffic for `idleTimeout` whose
    /// machine is idle-closeable is closed (`idleTimeoutElapsed`); any other is checked again
    /// `idleTimeout` after its last traffic (or after now, if it is busy). The queue stays in
    /// deadline order because a re-queued check never goes before the last one, so an idle
    /// connection is closed between one and two timeouts after its last traffic.
    func checkIdleConnections(now: ContinuousClock.Instant) {
        guard let timeout = configuration.idleTimeout else { return }
        while idleHead < idleChecks.count, idleChecks[idleHead].deadline <= now {
            let id = idleChecks[idleHead].id
            idleHead += 1
            guard let connection = connections[id] else { continue }
            let due = connection.lastActivity + timeout
            if due <= now, connection.machine.isIdleCloseable {
                perform(connection.machine.idleTimeoutElapsed(after: timeout), on: connection)
                continue
            }
            var next = due > now ? due : now + timeout
            if let last = idleChecks.last?.deadline, next < last { next = last }
            idleChecks.append((next, id))
        }
        if idleHead > 1024 && idleHead * 2 > idleChecks.count {
            idleChecks.removeFirst(idleHead)
            idleHead = 0
        }
    }

    // MARK: Bookkeeping at close

    /// Removes a closed connection from the per-uid counts.
    func forget(_ connection: Connection) {
        let uid = connection.peer.uid
        if let open = connectionsPerUID[uid] {
            if open <= 1 { connectionsPerUID[uid] = nil } else { connectionsPerUID[uid] = open - 1 }
        }
    }
}
