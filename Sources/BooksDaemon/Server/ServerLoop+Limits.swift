/// Limits across connections: the idle timeout of unsubscribed connections (one deadline queue,
/// no timer per connection), the budget for unfinished request lines, and the per-uid counts.
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

    // MARK: Unfinished lines

    /// Adds the change in `connection`'s unfinished-line bytes since the last call to the total.
    func noteUnfinishedLine(of connection: Connection) {
        let bytes = connection.machine.unfinishedLineBytes
        guard bytes != connection.unfinishedLineBytes else { return }
        unfinishedLineBytes += bytes - connection.unfinishedLineBytes
        connection.unfinishedLineBytes = bytes
    }

    /// The total of unfinished lines is over `partialLineBudgetBytes`: closes the live connection
    /// holding the largest unfinished line (`too-large`) until the total fits. Closing the
    /// largest, rather than pausing the reader, frees the memory and cannot starve a client
    /// whose request merely arrives in pieces. Returns whether `connection` is still open.
    func enforceLineBudget(reading connection: Connection) -> Bool {
        let budget = configuration.partialLineBudgetBytes
        while unfinishedLineBytes > budget {
            var largest: Connection?
            for candidate in connections.values
            where candidate.unfinishedLineBytes > (largest?.unfinishedLineBytes ?? 0) && candidate.machine.state.isLive
            {
                largest = candidate
            }
            guard let largest else { break }
            server.updateStatistics { $0.lineBudgetClosed += 1 }
            let actions = largest.machine.lineBudgetExceeded(budget: budget)
            guard !actions.isEmpty else { break }
            perform(actions, on: largest)
        }
        return connections[connection.id.raw] != nil
    }

    // MARK: Bookkeeping at close

    /// Removes a closed connection from the per-uid counts and the unfinished-line total.
    func forget(_ connection: Connection) {
        unfinishedLineBytes -= connection.unfinishedLineBytes
        connection.unfinishedLineBytes = 0
        let uid = connection.peer.uid
        if let open = connectionsPerUID[uid] {
            if open <= 1 { connectionsPerUID[uid] = nil } else { connectionsPerUID[uid] = open - 1 }
        }
    }
}
