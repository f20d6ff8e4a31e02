import Glibc

/// `deliverPendingInput`: finishing a barrier once the bytes that were in every connection's
/// socket buffer at the time of the call have been read and their complete requests delivered.
extension ServerLoop {
    /// Accepts the connections already waiting, notes how many bytes each live connection has
    /// in its socket buffer (`FIONREAD`), and finishes `barrier` when they are read and handed
    /// over (see `checkInputWaits`), or with false at `deadline`.
    func deliverPendingInput(_ barrier: PendingInputBarrier, deadline: ContinuousClock.Instant) {
        if listenFD >= 0, acceptResumeAt == nil { acceptConnections(limit: Int.max) }
        var remaining: [UInt64: Int] = [:]
        for (id, connection) in connections where connection.machine.acceptsInput {
            var available: Int32 = 0
            if ioctl(connection.fd, UInt(FIONREAD), &available) != 0 { available = 0 }
            if available > 0 || connection.machine.backlogCount > 0 { remaining[id] = Int(available) }
        }
        inputWaits.append(PendingInputWait(remaining: remaining, barrier: barrier, deadline: deadline))
        checkInputWaits()
    }

    /// `count` bytes were read from `connection`.
    func noteInput(_ count: Int, on connection: Connection) {
        for k in inputWaits.indices {
            inputWaits[k].remaining[connection.id.raw]? -= count
        }
    }

    /// Finishes the waits whose connections are all done: closed, no longer taking input, or
    /// with every noted byte read and no complete line left undelivered. Finishes a wait past
    /// its deadline with false. Runs once per loop iteration while a wait exists.
    func checkInputWaits() {
        let now = clock.now
        inputWaits.removeAll { wait in
            let done = wait.remaining.allSatisfy { id, bytes in
                guard let connection = connections[id], connection.machine.acceptsInput else { return true }
                return bytes <= 0 && connection.machine.backlogCount == 0
            }
            if done || now >= wait.deadline { wait.barrier.finish(delivered: done) }
            return done || now >= wait.deadline
        }
    }
}
