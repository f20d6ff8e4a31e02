import BooksCore

/// Re-reading after an I/O error. A read that failed (EIO, ENOSPC, EMFILE, …) leaves the books
/// as they were and the file `unavailable`, and no watcher event may ever come to read it again:
/// the machine schedules a re-read itself, backing off from 50 ms to 5 s while the error lasts.
/// A file that is unusable for what it is (a FIFO, too large, a refused symlink, JSON that does
/// not decode) is not polled: changing it produces the event that reads it again.
extension ReconcilerStateMachine {
    /// The first re-read's delay; each failed one doubles it, up to `rereadMaximumDelay`.
    static let rereadFirstDelay = Duration.milliseconds(50)
    static let rereadMaximumDelay = Duration.seconds(5)

    /// The re-read to schedule after reading the file failed with `error`, if it is an I/O error
    /// and none is scheduled yet.
    mutating func scheduleReread(after error: BookFileError) -> [ReconcilerAction] {
        guard case .system = error, !rereadPending else { return [] }
        rereadPending = true
        let delay = min(Self.rereadFirstDelay * (1 << min(rereadFailures, 10)), Self.rereadMaximumDelay)
        rereadFailures += 1
        return [.scheduleReread(after: delay)]
    }

    /// The re-read timer fired: read the file again while it is still unavailable (a failure
    /// schedules the next one).
    mutating func rereadTimerFired() -> [ReconcilerAction] {
        rereadPending = false
        guard case .unavailable = fileState else {
            rereadFailures = 0
            return []
        }
        return [
            .log(.debug, "re-reading the book file after an I/O error"), .observeFile(.fileEvent, unlessIdentity: nil),
        ]
    }
}
